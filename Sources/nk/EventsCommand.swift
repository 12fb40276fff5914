import ArgumentParser
import Foundation
import NetworkKit

/// `nk events URL`: follows a server-sent event stream and prints each event as it arrives.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Follow a server-sent event stream, printing one JSON object per event as it arrives.",
        discussion: """
            Each line is {"type": …, "data": …, "id": …}: id is the last event ID when the event was \
            dispatched ("" if none), type defaults to "message". Reconnects as EventSource does \
            (sending Last-Event-ID) unless --no-reconnect. Exits 0 after --max-events events, on a \
            204, or when the stream ends with --no-reconnect; otherwise non-zero with the error.
            """
    )

    @Argument(help: "The event stream's URL.")
    var url: String

    @Option(name: .customLong("last-event-id"), help: "The Last-Event-ID to resume from.")
    var lastEventID = ""

    @Option(name: .customLong("max-events"), help: "Exit 0 after N events.")
    var maxEvents: Int?

    @Flag(name: .customLong("no-reconnect"), help: "Do not reconnect when the stream ends or drops.")
    var noReconnect = false

    @Option(help: "The transport: nio (SwiftNIO's AsyncHTTPClient) or urlsession. Default: nio on Linux, urlsession elsewhere.")
    var transport: TransportChoice = .platformDefault

    @Option(name: [.customShort("H"), .customLong("header")], help: "A header to send, 'Name: value'. Repeatable.")
    var headers: [String] = []

    @Option(help: "Seconds without a byte (events and comments count) before the connection counts as lost.")
    var timeout: Double = 60

    @Flag(name: [.customShort("v"), .customLong("verbose")],
          help: "Log each connection's request and response headers to stderr (secrets hidden).")
    var verbose = false

    @OptionGroup(title: "Recording")
    var har: HAROption

    func validate() throws {
        if let maxEvents, maxEvents < 1 { throw ValidationError("--max-events must be at least 1") }
    }

    func run() async throws {
        var configuration = ServiceConfiguration(timeout: .seconds(timeout))
        if verbose { configuration.eventMonitors.append(VerboseMonitor()) }
        let recorder = har.recorder()
        let service = transport.service(configuration, recorder: recorder)
        defer { har.save(recorder) }
        let request = StreamRequest(events: RequestTarget(absolute: url), lastEventID: lastEventID,
                                    headerFields: try HeaderOption.parse(headers),
                                    reconnection: noReconnect ? .never : .eventSource)
        var count = 0
        do {
            for try await event in service.stream(request) {
                try EventLine.write(event)
                count += 1
                if let maxEvents, count >= maxEvents { return }
            }
        } catch {
            FileHandle.standardError.write(Data("nk: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// One event as one line of JSON on standard output, written at once.
enum EventLine {
    static func write(_ event: ServerSentEvent) throws {
        // In this order, each value escaped as a JSON string.
        var line = Data(#"{"type":"#.utf8)
        line += try JSON.string(event.type).serialized()
        line += Data(#","data":"#.utf8)
        line += try JSON.string(event.data).serialized()
        line += Data(#","id":"#.utf8)
        line += try JSON.string(event.id).serialized()
        line += Data("}\n".utf8)
        FileHandle.standardOutput.write(line)
    }
}
