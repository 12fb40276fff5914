#if CodeGeneration
/// Something the generator changed, degraded or left out so that the rest of a document still
/// generates, and where. Printed as `file:line: warning: message (at #/pointer)`, the form
/// compilers use, so SwiftPM and editors show it as a build warning at that line.
public struct GeneratorWarning: Equatable, Sendable, CustomStringConvertible {
    /// What kind of change it was, for counting.
    public enum Kind: String, Sendable, CaseIterable {
        /// An integer bound outside `Int64`, or not a whole number, clamped or rounded inward.
        case integerBound
        /// A `exclusiveMinimum`/`exclusiveMaximum` of the other OpenAPI version's form, rewritten.
        case exclusiveBound
        /// `nullable` in a 3.1 document, rewritten as a `null` type.
        case nullable
        /// A `type` array a document's version cannot hold, rewritten or read as any JSON value.
        case typeArray
        /// A boolean `required` on a schema, which only objects' `required` lists can say: dropped.
        case schemaRequiredFlag
        /// A path parameter not marked required, although path parameters always are.
        case pathParameterRequired
        /// A response without its required `description`, given an empty one.
        case responseDescription
        /// Schema keywords straight in a media type object, without `schema:`, read as its schema.
        case mediaTypeSchema
        /// Schema keywords straight in a parameter (Swagger 2's form), read as its schema.
        case parameterSchema
        /// `$recursiveRef` or `$dynamicRef`, read as any JSON value.
        case dynamicReference
        /// A schema OpenAPIKit could not read, read as any JSON value.
        case unreadableSchema
        /// Keys that are neither OpenAPI's nor extensions (`x-…`), such as Swagger 2's `host`: ignored.
        case unknownKeys
        /// A schema construct without a Swift type, read as any JSON value.
        case degradedToJSON
        /// An operation left out: unreadable, or not expressible as a NetworkKit request.
        case skippedOperation
        /// A parameter left out (cookies, which the service sets).
        case skippedParameter
        /// A deprecated parameter, or a setting that has no effect.
        case note
    }

    /// What kind of change it was.
    public var kind: Kind
    /// The document.
    public var file: String
    /// The 1-based line, when known.
    public var line: Int?
    /// The JSON pointer of the value it is about.
    public var pointer: String
    /// What was changed, and why.
    public var message: String

    /// A warning of `kind` at `pointer` (and `line`) of `file`.
    public init(kind: Kind, file: String, line: Int?, pointer: String, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.pointer = pointer
        self.message = message
    }

    /// `file:line: warning: message (at #/pointer)`.
    public var description: String {
        let location = line.map { "\(file):\($0)" } ?? file
        return "\(location): warning: \(message) (at \(pointer))"
    }
}
#endif
