/// A file name's extension, found by scanning its Unicode scalars.
///
/// Not `NSString.pathExtension`: on Linux it traps on some names (fuzz-multipart found
/// `"///////~//////////////"`), and file names reach it from servers (`Content-Disposition`).
enum FileNameExtension {
    /// `name` split at the dot before its extension: `("photo.large", "jpg")` for
    /// `"photo.large.jpg"`. The extension is what follows the last dot of the last path
    /// component, unless that dot starts the component (`".profile"`) or ends it (`"notes."`):
    /// then it is empty and `base` is the whole name.
    static func split(_ name: String) -> (base: String, extension: String) {
        let scalars = name.unicodeScalars
        let component = scalars.lastIndex(of: "/").map { scalars.index(after: $0) } ?? scalars.startIndex
        guard let dot = scalars[component...].lastIndex(of: "."), dot != component else { return (name, "") }
        let start = scalars.index(after: dot)
        guard start != scalars.endIndex else { return (name, "") }
        return (String(String.UnicodeScalarView(scalars[..<dot])), String(String.UnicodeScalarView(scalars[start...])))
    }
}
