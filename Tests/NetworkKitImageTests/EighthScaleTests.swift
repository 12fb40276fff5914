import CImageShims
import FixtureServer
import Foundation
@testable import NetworkKitImage
import NetworkKit
import Testing

/// One JPEG layout of `Fixtures.eighthLayouts` at one size, and whether the 1/8-scale path must take it.
struct EighthScaleFixture: Sendable, CustomStringConvertible {
    let file: String
    let fast: Bool

    var description: String { file }

    static let all: [EighthScaleFixture] = Fixtures.eighthSizes.flatMap { width, height in
        Fixtures.eighthLayouts.map { layout in
            EighthScaleFixture(file: "eighth_\(layout.name)_\(width)x\(height).jpg",
                               fast: layout.name != "progressive" && layout.name != "arithmetic")
        }
    }
}

/// What one 1/8-scale decode through the C layer gave.
struct EighthScaleDecode: Equatable {
    var pixels: [UInt8]
    /// Slices the fast path split the scan into; 0 when it declined (or for libjpeg itself).
    var threads: Int
}

/// Decodes `data` at 1/8 scale with libjpeg (`threads` nil) or with the fast path split into up to
/// `threads` slices (run on Dispatch's threads). Nil when libjpeg fails, or when the fast path declines.
func decodeEighth(_ data: Data, threads: Int32?) -> EighthScaleDecode? {
    guard let decoder = nk_jpeg_create() else { return nil }
    defer { nk_jpeg_destroy(decoder) }
    return data.withUnsafeBytes { bytes -> EighthScaleDecode? in
        guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return nil }
        var info = nk_jpeg_info()
        guard nk_jpeg_read_header(decoder, base, bytes.count, &info) == 0, nk_jpeg_set_scale(decoder, 1, &info) == 0,
              Int(info.width) * Int(info.height) <= 1 << 24 else { return nil }
        let stride = Int(info.width) * 4
        var pixels = [UInt8](repeating: 0, count: stride * Int(info.height))
        let status = pixels.withUnsafeMutableBufferPointer { buffer -> Int in
            guard let base = buffer.baseAddress else { return -1 }
            if let threads {
                return EighthScaleDecoder.decode(decoder, into: base, bytesPerRow: stride, slices: Int(threads))
            }
            return nk_jpeg_decode(decoder, base, stride) == 0 ? 0 : -1
        }
        if threads == nil ? status != 0 : status == 0 { return nil }
        return EighthScaleDecode(pixels: pixels, threads: status)
    }
}

/// The 1/8-scale path must give libjpeg-turbo's own bytes, on any number of threads, and
/// leave to libjpeg everything it does not handle, including damaged files.
@Suite struct EighthScaleTests {
    @Test(arguments: EighthScaleFixture.all)
    func sameBytesAsLibjpegOnAnyNumberOfThreads(_ fixture: EighthScaleFixture) throws {
        let data = try Fixtures.data(fixture.file)
        let reference = try #require(decodeEighth(data, threads: nil))
        for threads: Int32 in [1, 2, 3, 8] {
            let fast = decodeEighth(data, threads: threads)
            guard fixture.fast else {
                #expect(fast == nil, "\(fixture) must be left to libjpeg")
                continue
            }
            let decoded = try #require(fast, "\(fixture): the fast path declined on \(threads) threads")
            let same = decoded.pixels == reference.pixels
            #expect(same, "\(fixture) on \(threads) threads: \(maxDifference(decoded.pixels, reference.pixels) ?? -1) apart")
        }
    }

    /// Splitting without restart markers relies on the runs meeting; on a file big enough
    /// for every thread to get a share, they must, so the threads really were used.
    @Test(arguments: ["eighth_420_640x480.jpg", "eighth_444_640x480.jpg", "eighth_gray_640x480.jpg",
                      "eighth_restart1_640x480.jpg"])
    func largeFilesAreSharedBetweenThreads(_ file: String) throws {
        let data = try Fixtures.data(file)
        for threads: Int32 in [2, 4] {
            let decoded = try #require(decodeEighth(data, threads: threads))
            #expect(decoded.threads == Int(threads), "\(file): decoded on \(decoded.threads) of \(threads) threads")
        }
    }

    /// Damaged files: the fast path either declines or gives exactly what libjpeg gives.
    @Test(arguments: ["eighth_420_203x157.jpg", "eighth_restart2b_203x157.jpg", "eighth_gray_restart_203x157.jpg",
                      "eighth_mixed_64x48.jpg"])
    func damagedFilesDeclineOrMatchLibjpeg(_ file: String) throws {
        let original = try Fixtures.data(file)
        var random = SeededGenerator(seed: UInt64(file.utf8.count * 7919))
        var declined = 0
        for round in 0..<150 {
            var damaged = original
            if round % 3 == 0 {
                damaged = damaged.prefix(Int.random(in: 0..<damaged.count, using: &random))
            } else {
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let index = Int.random(in: 0..<damaged.count, using: &random)
                    damaged[index] ^= 1 << UInt8.random(in: 0...7, using: &random)
                }
            }
            for threads: Int32 in [1, 3] {
                guard let fast = decodeEighth(damaged, threads: threads) else {
                    declined += 1
                    continue
                }
                let same = decodeEighth(damaged, threads: nil)?.pixels == fast.pixels
                #expect(same, "\(file), round \(round), \(threads) threads: libjpeg failed or decoded differently")
            }
        }
        #expect(declined > 0)
    }

    /// Through the codec: a thumbnail from the fast path equals one from libjpeg alone.
    @Test func codecThumbnailsMatchWithAndWithoutTheFastPath() throws {
        let data = try Fixtures.data("eighth_420_640x480.jpg")
        let options = ImageDecodingOptions(maxPixelSize: 64)
        let fast = try JPEGCodec(eighthScaleThreads: 2).decode(data, options: options)
        let plain = try JPEGCodec(eighthScaleThreads: 0).decode(data, options: options)
        #expect(fast.width == 64 && fast.height == 48)
        let same = fast.pixels == plain.pixels
        #expect(same)
        #expect(JPEGCodec().threadsForEighthScale(byteCount: 1024) == 0)
        #expect(JPEGCodec(maxThreads: 1).threadsForEighthScale(byteCount: 8 << 20) == 1)
        #expect(JPEGCodec(maxThreads: 1).threadsForEighthScale(byteCount: 300 << 10) == 0)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(JPEGCodec().threadsForEighthScale(byteCount: 8 << 20) == (cores >= 2 ? min(cores, 4) : 1))
        // Cores that other decodes keep busy are not taken.
        #expect(JPEGCodec().threadsForEighthScale(byteCount: 8 << 20, otherDecodes: cores) == 1)
        #expect(JPEGCodec().threadsForEighthScale(byteCount: 8 << 20, otherDecodes: 1) == (cores >= 3 ? min(cores - 1, 4) : 1))
    }
}
