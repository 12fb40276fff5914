import CJPEG
import CPNG
import CWebP
import Foundation

/// The C libraries called directly, with the same output (RGBA8) and the same buffer
/// policy (a fresh Swift array per decode) as NetworkKitImage: the bar to match.
enum ImageReferenceDecoders {
    /// libjpeg-turbo's API with its default error manager (valid input only), optionally
    /// DCT-scaled by `scaleNumerator`/8.
    static func libjpegRGBA(_ data: Data, scaleNumerator: UInt32 = 8) -> [UInt8] {
        let cinfo = UnsafeMutablePointer<jpeg_decompress_struct>.allocate(capacity: 1)
        let errors = UnsafeMutablePointer<jpeg_error_mgr>.allocate(capacity: 1)
        defer { cinfo.deallocate(); errors.deallocate() }
        cinfo.initialize(to: jpeg_decompress_struct())
        errors.initialize(to: jpeg_error_mgr())
        cinfo.pointee.err = jpeg_std_error(errors)
        jpeg_CreateDecompress(cinfo, JPEG_LIB_VERSION, MemoryLayout<jpeg_decompress_struct>.size)
        defer { jpeg_destroy_decompress(cinfo) }
        return data.withUnsafeBytes { bytes in
            jpeg_mem_src(cinfo, bytes.bindMemory(to: UInt8.self).baseAddress, UInt(bytes.count))
            jpeg_read_header(cinfo, 1)
            cinfo.pointee.out_color_space = JCS_EXT_RGBA
            cinfo.pointee.scale_num = scaleNumerator
            cinfo.pointee.scale_denom = 8
            jpeg_start_decompress(cinfo)
            let width = Int(cinfo.pointee.output_width), height = Int(cinfo.pointee.output_height)
            let stride = width * 4
            let pixels = [UInt8](unsafeUninitializedCapacity: stride * height) { buffer, count in
                var rows = [JSAMPROW?](repeating: nil, count: 16)
                while cinfo.pointee.output_scanline < cinfo.pointee.output_height {
                    let first = Int(cinfo.pointee.output_scanline)
                    let batch = min(16, height - first)
                    for row in 0..<batch { rows[row] = buffer.baseAddress.map { $0 + (first + row) * stride } }
                    _ = rows.withUnsafeMutableBufferPointer { jpeg_read_scanlines(cinfo, $0.baseAddress, JDIMENSION(batch)) }
                }
                count = stride * height
            }
            jpeg_finish_decompress(cinfo)
            return pixels
        }
    }

    /// libwebp's `WebPDecodeRGBAInto`.
    static func libwebpRGBA(_ data: Data) -> [UInt8] {
        data.withUnsafeBytes { bytes in
            let input = bytes.bindMemory(to: UInt8.self).baseAddress
            var width: Int32 = 0, height: Int32 = 0
            guard WebPGetInfo(input, bytes.count, &width, &height) != 0 else { return [] }
            let stride = Int(width) * 4, size = stride * Int(height)
            return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                let output = WebPDecodeRGBAInto(input, bytes.count, buffer.baseAddress, size, Int32(stride))
                count = output == nil ? 0 : size
            }
        }
    }

    /// libpng's simplified API to RGBA8.
    static func libpngRGBA(_ data: Data) -> [UInt8] {
        let image = UnsafeMutablePointer<png_image>.allocate(capacity: 1)
        image.initialize(to: png_image())
        image.pointee.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(image); image.deallocate() }
        return data.withUnsafeBytes { bytes in
            guard png_image_begin_read_from_memory(image, bytes.baseAddress, bytes.count) != 0 else { return [] }
            image.pointee.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
            let stride = Int(image.pointee.width) * 4, size = stride * Int(image.pointee.height)
            return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                let ok = png_image_finish_read(image, nil, buffer.baseAddress, Int32(stride), nil)
                count = ok == 0 ? 0 : size
            }
        }
    }
}
