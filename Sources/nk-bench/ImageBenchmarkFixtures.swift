import FixtureServer
import Foundation

/// The benchmark's large images, generated once by python3 + Pillow into a cache directory.
struct ImageBenchmarkFixtures {
    let directory: URL
    let jpeg: URL   // 4000 × 3000 (12 MP), photo-like with film grain
    let smoothJPEG: URL // 4000 × 3000 (12 MP), the same without grain
    let png: URL    // 2000 × 2000 (4 MP)
    let webp: URL   // 2000 × 2000 (4 MP)

    static func prepare() throws -> ImageBenchmarkFixtures {
        try requirePillow()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("networkkit-bench-images-v1")
        let fixtures = ImageBenchmarkFixtures(
            directory: directory,
            jpeg: directory.appendingPathComponent("photo-12mp.jpg"),
            smoothJPEG: directory.appendingPathComponent("smooth-12mp.jpg"),
            png: directory.appendingPathComponent("photo-4mp.png"),
            webp: directory.appendingPathComponent("photo-4mp.webp")
        )
        let present = [fixtures.jpeg, fixtures.smoothJPEG, fixtures.png, fixtures.webp].allSatisfy { FileManager.default.fileExists(atPath: $0.path) }
        if !present {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try runPython(generator, arguments: [directory.path])
        }
        return fixtures
    }

    /// Fails with what to install when python3 cannot import Pillow (checked without a traceback).
    private static func requirePillow() throws {
        do {
            try runPython("import importlib.util, sys; sys.exit(importlib.util.find_spec('PIL') is None)")
        } catch {
            throw MissingPillow(reason: "\(error)")
        }
    }

    /// Smooth photo-like colour fields with (optional) film grain, so the codecs see realistic data.
    private static let generator = """
    import os, sys, random
    from PIL import Image
    out = sys.argv[1]
    random.seed(42)
    def photo(w, h, grain_amount=0.12):
        small = Image.frombytes("RGB", (64, 48), bytes(random.randrange(256) for _ in range(64 * 48 * 3)))
        base = small.resize((w, h), Image.BICUBIC)
        grain = Image.effect_noise((w, h), 18).convert("RGB")
        return Image.blend(base, grain, grain_amount)
    photo(4000, 3000).save(os.path.join(out, "photo-12mp.jpg"), quality=90)
    photo(4000, 3000, grain_amount=0).save(os.path.join(out, "smooth-12mp.jpg"), quality=90)
    square = photo(2000, 2000)
    square.save(os.path.join(out, "photo-4mp.png"))
    square.save(os.path.join(out, "photo-4mp.webp"), quality=80)
    """
}

/// Runs a Python program (`python3 -c`) and returns its standard output.
@discardableResult
func runPython(_ program: String, arguments: [String] = []) throws -> String {
    try toolOutput(["python3", "-c", program] + arguments)
}

/// Pillow is not importable: the image benchmarks make their images with it and time it.
struct MissingPillow: Error, CustomStringConvertible {
    /// What running python3 gave.
    let reason: String

    var description: String {
        "the image benchmarks need python3 with Pillow, to make their images and to time Pillow against the kit "
            + "(\(reason)): install it with `python3 -m pip install pillow` or `apt-get install python3-pil`, "
            + "or run another part (NK_BENCH_ONLY=network, model, nio, transfers, cache)"
    }
}
