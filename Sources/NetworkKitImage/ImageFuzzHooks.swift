/// Codecs configured as the fuzz targets under `Fuzz/` need them (package access: not part of
/// the public API).
package enum ImageFuzzHooks {
    /// A JPEG codec whose 1/8-scale path always runs, on `threads` threads, whatever the file's size.
    package static func jpegCodec(eighthScaleThreads threads: Int) -> JPEGCodec {
        JPEGCodec(eighthScaleThreads: threads)
    }
}
