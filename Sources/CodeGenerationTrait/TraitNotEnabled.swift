import Foundation

/// What a code generator's tool does when built without NetworkKit's `CodeGeneration` trait, and
/// so without the packages it needs: says which trait to enable, on standard error, and exits
/// with status 1, so the build or the command that ran the tool fails with that message.
public func exitForMissingTrait(tool: String) -> Never {
    FileHandle.standardError.write(Data("""
        error: \(tool) needs NetworkKit's CodeGeneration trait, which brings OpenAPIKit, Yams and \
        swift-argument-parser: add traits: ["CodeGeneration"] to NetworkKit's .package line (in its own \
        folder: --enable-all-traits)

        """.utf8))
    exit(1)
}
