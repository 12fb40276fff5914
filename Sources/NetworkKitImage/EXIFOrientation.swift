/// Reads the orientation tag (0x0112) from an EXIF (TIFF) block, bounds-checking every read.
enum EXIFOrientation {
    /// The orientation in `tiff` (the APP1 payload after `Exif\0\0`), or `.up` when absent or malformed.
    static func read(_ tiff: UnsafeRawBufferPointer) -> ImageOrientation {
        guard tiff.count >= 8 else { return .up }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false // "II"
        case (0x4D, 0x4D): bigEndian = true  // "MM"
        default: return .up
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= tiff.count else { return nil }
            let a = Int(tiff[offset]), b = Int(tiff[offset + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ offset: Int) -> Int? {
            guard let high = u16(bigEndian ? offset : offset + 2),
                  let low = u16(bigEndian ? offset + 2 : offset) else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return .up }
        for entry in 0..<entries {
            let offset = ifd + 2 + entry * 12
            guard let tag = u16(offset) else { return .up }
            // Orientation is a SHORT (type 3) with count 1, stored in the first two value bytes.
            if tag == 0x0112, u16(offset + 2) == 3, let value = u16(offset + 8) {
                return ImageOrientation(rawValue: value) ?? .up
            }
        }
        return .up
    }
}
