import Foundation

/// Progressive JPEGs for the thumbnail path that skips scans: every layout of
/// `Fixtures.progressiveLayouts` at every size of `Fixtures.progressiveSizes`, made by `cjpeg`
/// (`-progressive` gives libjpeg-turbo's `jpeg_simple_progression`; `-scans` a scan script).
extension FixtureMaker {
    mutating func makeProgressiveJPEGs() throws {
        for layout in Fixtures.progressiveLayouts where layout.scans != nil {
            try keep("scans_\(layout.name).txt", Data((layout.scans ?? "").utf8))
        }
        for (width, height) in Fixtures.progressiveSizes {
            let source = "progressive_\(width)x\(height).ppm"
            try keep(source, TestImage(width: width, height: height, seed: 77).ppm)
            for layout in Fixtures.progressiveLayouts {
                let script = layout.scans == nil ? ["-progressive"] : ["-scans", path("scans_\(layout.name).txt")]
                try cjpeg(layout.arguments + script, from: source, to: Fixtures.progressiveFile(layout.name, width, height))
            }
        }
    }
}

extension Fixtures {
    /// A progressive layout: cjpeg's arguments, a scan script (nil: `-progressive`), and whether
    /// a thumbnail at 1/8 skips scans (false where the file leaves AC coefficients 1-9 imprecise
    /// or has no AC scan to skip, so libjpeg's smoothing is at work and every scan is read).
    struct ProgressiveLayout: Sendable {
        let name: String
        let arguments: [String]
        var scans: String?
        var skips = true
    }

    static let progressiveLayouts = [
        ProgressiveLayout(name: "420", arguments: []),
        ProgressiveLayout(name: "444", arguments: ["-sample", "1x1"]),
        ProgressiveLayout(name: "422", arguments: ["-sample", "2x1"]),
        ProgressiveLayout(name: "411", arguments: ["-sample", "4x1"]),
        ProgressiveLayout(name: "mixed", arguments: ["-sample", "2x2,1x1,2x2"]),
        ProgressiveLayout(name: "restart", arguments: ["-restart", "1"]),
        ProgressiveLayout(name: "gray", arguments: ["-grayscale"]),
        ProgressiveLayout(name: "rgb", arguments: ["-rgb"]),
        ProgressiveLayout(name: "q100", arguments: ["-quality", "100", "-optimize"]),
        ProgressiveLayout(name: "arithmetic", arguments: ["-arithmetic"]),
        // DC refined in three interleaved steps, AC by spectral selection alone.
        ProgressiveLayout(name: "dc_steps", arguments: ["-sample", "1x1"], scans: """
            0,1,2: 0-0, 0, 2; 0,1,2: 0-0, 2, 1; 0,1,2: 0-0, 1, 0;
            0: 1-9, 0, 0; 1: 1-63, 0, 0; 0: 10-63, 0, 0; 2: 1-63, 0, 0;
            """),
        // One DC scan per component, luma AC in three bands.
        ProgressiveLayout(name: "separate_dc", arguments: [], scans: """
            0: 0-0, 0, 0; 1: 0-0, 0, 0; 2: 0-0, 0, 0;
            0: 1-2, 0, 0; 1: 1-63, 0, 0; 2: 1-63, 0, 0; 0: 3-20, 0, 0; 0: 21-63, 0, 0;
            """),
        // AC never refined past Al = 1 for the chroma: libjpeg smooths, so nothing is skipped.
        ProgressiveLayout(name: "unrefined", arguments: [], scans: """
            0,1,2: 0-0, 0, 1; 0: 1-5, 0, 2; 2: 1-63, 0, 1; 1: 1-63, 0, 1;
            0: 6-63, 0, 2; 0: 1-63, 2, 1; 0,1,2: 0-0, 1, 0; 0: 1-63, 1, 0;
            """, skips: false),
        // No luma AC at all: libjpeg interpolates DC, so nothing is skipped.
        ProgressiveLayout(name: "no_luma_ac", arguments: [], scans: """
            0: 0-0, 0, 0; 1: 0-0, 0, 0; 2: 0-0, 0, 0; 1: 1-63, 0, 0; 2: 1-63, 0, 0;
            """, skips: false),
    ]
    static let progressiveSizes = [(9, 7), (203, 157), (640, 480)]

    static func progressiveFile(_ layout: String, _ width: Int, _ height: Int) -> String {
        "progressive_\(layout)_\(width)x\(height).jpg"
    }
}
