import ArgumentParser

/// `nk`: NetworkKit from the command line.
@main
struct NK: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nk",
        abstract: "NetworkKit from the command line: fetch and parse URLs, or tour the kit against a local server.",
        subcommands: [GetCommand.self, EventsCommand.self, DownloadCommand.self, ImageCommand.self, WebSocketCommand.self, DemoCommand.self]
    )
}
