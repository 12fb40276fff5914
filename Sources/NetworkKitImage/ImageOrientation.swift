/// The EXIF orientation (tag 0x0112) of an image, with the same raw values as EXIF and
/// `CGImagePropertyOrientation`: how the stored pixels must be transformed to display upright.
///
/// Decoders **report** it; they never rotate or flip the pixels.
public enum ImageOrientation: Int, Sendable, Hashable {
    /// 1: stored upright (the default when a file says nothing).
    case up = 1
    /// 2: mirrored horizontally.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored vertically.
    case downMirrored = 4
    /// 5: mirrored horizontally, then rotated 90° counter-clockwise.
    case leftMirrored = 5
    /// 6: must be rotated 90° clockwise to display.
    case right = 6
    /// 7: mirrored horizontally, then rotated 90° clockwise.
    case rightMirrored = 7
    /// 8: must be rotated 90° counter-clockwise to display.
    case left = 8
}
