/// A walk over PNG chunk headers (not their contents).
enum PNGChunks {
    /// True when the chunk sequence after the signature reaches a complete `IEND` chunk.
    /// libpng's simplified reader stops after the image data, so without this check a file
    /// cut off inside its last chunk would pass as whole.
    static func endsWithIEND(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
            let isEnd = bytes[offset + 4] == 0x49 && bytes[offset + 5] == 0x45
                && bytes[offset + 6] == 0x4E && bytes[offset + 7] == 0x44 // "IEND"
            let next = offset + 12 + length // length < 2^32, so this cannot overflow
            guard next <= bytes.count else { return false }
            if isEnd { return true }
            offset = next
        }
        return false
    }

    /// True for an Adam7-interlaced file, read from the `IHDR` chunk that must follow the
    /// signature (interlace method at byte 28).
    static func isInterlaced(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count > 28 && bytes[28] == 1
    }

    /// True for an Adam7-interlaced file of 16 bits per sample, read from the `IHDR` chunk that
    /// must follow the signature (bit depth at byte 24, interlace method at byte 28).
    static func isInterlaced16Bit(_ bytes: UnsafeRawBufferPointer) -> Bool {
        isInterlaced(bytes) && bytes[24] == 16
    }
}
