import CImageShims
import CJPEGEighth
import Dispatch

/// The 1/8-scale path of ``JPEGCodec``: CJPEGEighth's job, whose slices run on Dispatch's
/// threads (`DispatchQueue.concurrentPerform`), so a decode starts no thread of its own.
package enum EighthScaleDecoder {
    /// Decodes the file whose header `decoder` (an `nk_jpeg_decoder` with scale 1/8 set) has read
    /// into `pixels`, the scan split into `slices` slices (1…8) run side by side as far as the
    /// cores and Dispatch's threads allow. Returns into how many slices the scan was split
    /// (1 when splitting failed), or 0 when the file is outside what the path handles or looks
    /// corrupt: then `decoder` is untouched and the caller decodes with libjpeg.
    package static func decode(_ decoder: OpaquePointer, into pixels: UnsafeMutablePointer<UInt8>, bytesPerRow: Int,
                               slices: Int) -> Int {
        guard let job = nk_eighth_job_create(nk_jpeg_decompressor(decoder), pixels, bytesPerRow, Int32(clamping: slices)) else {
            return 0
        }
        defer { nk_eighth_job_destroy(job) }
        while case let count = Int(nk_eighth_job_next_step(job)), count > 0 {
            if count == 1 {
                nk_eighth_job_run_slice(job, 0)
            } else {
                // The slices of one step touch disjoint memory and may run at the same time
                // (nk_eighth_job.h); concurrentPerform returns once all have run, before the next step.
                nonisolated(unsafe) let sliced = job
                DispatchQueue.concurrentPerform(iterations: count) { nk_eighth_job_run_slice(sliced, Int32($0)) }
            }
        }
        return Int(nk_eighth_job_result(job))
    }
}
