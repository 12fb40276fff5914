import ArgumentParser
import Foundation
import NetworkKit

/// `--har FILE`: each exchange of the command appended to a HAR 1.2 file when the command ends.
struct HAROption: ParsableArguments {
    @Option(name: .customLong("har"),
            help: "Append each exchange (request, response, timings) to this HAR 1.2 file when the command ends, made when missing; credentials and cookies hidden.")
    var file: String?

    /// A recorder when `--har` was given.
    func recorder() -> HARRecorder? {
        file == nil ? nil : HARRecorder()
    }

    /// Appends what `recorder` recorded to the file; a file that cannot be written is reported
    /// on stderr.
    func save(_ recorder: HARRecorder?) {
        guard let file, let recorder else { return }
        do {
            try recorder.append(to: URL(fileURLWithPath: file))
        } catch {
            FileHandle.standardError.write(Data("nk: \(error)\n".utf8))
        }
    }
}
