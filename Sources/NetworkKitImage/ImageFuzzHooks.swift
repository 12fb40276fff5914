/// Codecs configured as the fuzz targets under `Fuzz/` need them (package access: not part of
/// the public API).
package enum ImageFuzzHooks {
    /// A JPEG codec whose 1/8-scale path always runs, on `threads` threads, whatever the file's size.
    package static func jpegCodec(eighthScaleThreads threads: Int) -> JPEGCodec {
        JPEGCodec(eighthScaleThreads: threads)
    }

    /// A JPEG codec that reads every scan of a progressive file, even for a thumbnail at 1/8
    /// (and leaves baseline files to libjpeg): the reference for the codec that skips scans.
    package static func jpegCodecReadingEveryScan() -> JPEGCodec {
        JPEGCodec(eighthScaleThreads: 0, skippingScans: false)
    }
}
