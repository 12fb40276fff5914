#if CodeGeneration
import Foundation
import Yams

/// Finds the line of a JSON pointer in a YAML or JSON text, for error messages. It reads the text
/// with Yams, which keeps each node's position.
public struct SourceLocator {
    private let root: Node?

    /// A locator for `text`; one that finds nothing when the text is not YAML (or JSON).
    public init(text: String) {
        root = try? Yams.compose(yaml: text)
    }

    /// A locator for a document already read into `root`.
    init(root: Node?) {
        self.root = root
    }

    /// The 1-based line of the value at `pointer`, or of the deepest enclosing value found (the
    /// object a missing key should have been in).
    public func line(of pointer: JSONPointer) -> Int? {
        guard var node = root else { return nil }
        var line = node.mark?.line
        for key in pointer.keys {
            guard let next = child(of: node, key) else { break }
            node = next.value
            line = next.keyLine ?? node.mark?.line ?? line
        }
        return line
    }

    /// The node under `key`, and the line of the key itself for mappings (a value's own mark
    /// can be the line after its key, for nested blocks).
    private func child(of node: Node, _ key: String) -> (value: Node, keyLine: Int?)? {
        switch node {
        case .mapping(let mapping):
            for (name, value) in mapping where name.string == key {
                return (value, name.mark?.line)
            }
            return nil
        case .sequence(let sequence):
            guard let index = Int(key), sequence.indices.contains(index) else { return nil }
            let value = sequence[index]
            return (value, value.mark?.line)
        case .scalar, .alias:
            return nil
        }
    }
}
#endif
