#if CodeGeneration
/// The document being read: its name for messages and a way to find the line of a pointer.
struct SourceFile {
    /// The file as messages name it.
    let path: String
    let locator: SourceLocator

    /// An error at `pointer`, with its line.
    func error(at pointer: JSONPointer, _ message: String) -> GeneratorError {
        GeneratorError(file: path, line: locator.line(of: pointer), pointer: pointer.description, message: message)
    }

    /// A warning of `kind` at `pointer`, with its line.
    func warning(_ kind: GeneratorWarning.Kind, at pointer: JSONPointer, _ message: String) -> GeneratorWarning {
        GeneratorWarning(kind: kind, file: path, line: locator.line(of: pointer), pointer: pointer.description, message: message)
    }
}
#endif
