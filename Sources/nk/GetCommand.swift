import ArgumentParser
import Foundation
import NetworkKit

/// `nk get URL`: fetches a URL and prints the parsed result.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Fetch a URL and print the parsed result (text, or JSON with --json).",
        discussion: "Any failure exits non-zero with the error on stderr."
    )

    @Argument(help: "The URL to fetch.")
    var url: String

    @Option(help: "The transport: nio (SwiftNIO's AsyncHTTPClient) or urlsession. Default: nio on Linux, urlsession elsewhere.")
    var transport: TransportChoice = .platformDefault

    @OptionGroup(title: "Connection (curl's flags)")
    var connection: ConnectionOptions

    @OptionGroup(title: "Recording")
    var har: HAROption

    @Flag(help: "Parse the body as JSON and pretty-print it.")
    var json = false

    @Option(name: .customLong("code-key"), help: "Key path of the business code to check (implies --json).")
    var codeKey: String?

    @Option(name: .customLong("ok"), help: "A business code that means success (default 0). Repeatable.")
    var okValues: [String] = []

    @Option(name: .customLong("key-path"), help: "Print only the value at this key path, e.g. content/entrance/0 (implies --json).")
    var keyPath: String?

    @Option(name: [.customShort("H"), .customLong("header")], help: "A header to send, 'Name: value'. Repeatable.")
    var headers: [String] = []

    @Option(name: [.customShort("X"), .customLong("method")], help: "HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD).")
    var method = "GET"

    @Option(name: [.customShort("p"), .customLong("param")], help: "A parameter, 'name=value'. Repeatable.")
    var params: [String] = []

    @Option(name: [.customShort("F"), .customLong("form")],
            help: "A multipart field, as curl's -F: 'name=value', or 'name=@path[;type=mime]' for a file. Repeatable; implies POST.")
    var forms: [String] = []

    @Option(name: [.customShort("T"), .customLong("upload-file")],
            help: "Send this file's contents as the body, as curl's -T: '-' streams standard input as it is read (chunked on nio). Implies PUT; the type is -H's Content-Type, else application/octet-stream.")
    var uploadFile: String?

    @Option(help: "Timeout in seconds.")
    var timeout: Double = 15

    @Option(name: .customLong("max-filesize"),
            help: "Refuse a body larger than BYTES (counted after decoding), as curl's --max-filesize. Default 64 MiB.")
    var maxFilesize: Int64?

    @Option(name: .customLong("max-time"), help: "Give up after SECONDS in all, retries included, as curl's --max-time.")
    var maxTime: Double?

    @Option(help: "Retry up to N times after transport failures and 429/502/503/504 (idempotent methods only).")
    var retry = 0

    @Option(help: "Answer from the disk cache for SECONDS after a fetch (revalidating with ETag/Last-Modified afterwards).")
    var cache: Int?

    @Option(name: .customLong("cache-dir"), help: "The disk cache's directory (default $XDG_CACHE_HOME/nk or ~/.cache/nk).")
    var cacheDir: String?

    @Flag(help: "Print the body as it arrives, byte for byte.")
    var stream = false

    @Flag(name: .customLong("json-lines"),
          help: "Read the body as JSON Lines: print one compact JSON value per line as each line arrives (with --key-path, the value there; with --code-key, each line's code is checked).")
    var jsonLines = false

    @Flag(help: "Print a curl command that sends the request as nk would (credentials included), and exit.")
    var curl = false

    @Flag(help: "Offer every content coding the kit decodes (gzip, deflate, br, zstd), as curl's --compressed; without it the answer is asked for unencoded.")
    var compressed = false

    @Flag(name: [.customShort("v"), .customLong("verbose")],
          help: "Log each attempt's request and response headers to stderr, as curl -v does (secrets hidden).")
    var verbose = false

    func run() async throws {
        guard forms.isEmpty || uploadFile == nil else { throw ValidationError("-F and -T each give the body: use one") }
        let implied = !forms.isEmpty ? "POST" : uploadFile != nil ? "PUT" : nil
        let methodName = self.method.uppercased() != "GET" ? self.method : implied ?? self.method
        guard let method = HTTPRequest.Method(methodName.uppercased()) else {
            throw ValidationError("\"\(self.method)\" is not a method (an RFC 9110 token)")
        }
        let form = try multipartForm()
        let headerFields = try HeaderOption.parse(headers)
        let parameters = Dictionary(params.map(Self.splitParameter), uniquingKeysWith: { _, last in last })
        var configuration = ServiceConfiguration()
        if retry > 0 { configuration.interceptors.append(RetryPolicy(maxRetries: retry)) }
        configuration.acceptedCodings = compressed ? ContentCoding.allCases : []
        if verbose { configuration.eventMonitors.append(VerboseMonitor()) }
        if cache != nil { configuration.responseCache = ResponseCache(directory: cacheDirectory) }
        let recorder = har.recorder()
        let service = try connection.service(transport, configuration, url: url, recorder: recorder)
        defer {
            connection.saveCookies(of: service)
            har.save(recorder)
        }
        if stream || jsonLines {
            guard forms.isEmpty, uploadFile == nil else { throw ValidationError("--stream and --json-lines send no body (-F, -T)") }
            return try await follow(on: service, method: method, parameters: parameters, headerFields: headerFields)
        }
        if json || codeKey != nil || keyPath != nil {
            let parser = JSONParser(businessCode: businessCode,
                                    contentKeyPath: keyPath.map { JSONKeyPath($0) })
            let request = Request(url: url, method: method, parameters: parameters, headerFields: headerFields, parser: parser)
            try await send(request, on: service, form: form) { print(try render($0)) }
        } else {
            let request = Request(url: url, method: method, parameters: parameters, headerFields: headerFields)
            try await send(request, on: service, form: form) { FileHandle.standardOutput.write($0) }
        }
    }

    /// Sends `request` (or prints its curl command) and hands the value to `output`; a failure
    /// goes to stderr with exit status 1.
    private func send<Output>(_ request: Request<Output>, on service: Service, form: MultipartForm?,
                              output: (Output) throws -> Void) async throws {
        request.timeout = .seconds(timeout)
        if let body = try uploadBody(form: form, contentType: request.headerFields[.contentType]) {
            request.body = body
            let line = ProgressLine(quiet: isatty(STDERR_FILENO) == 0)
            request.addProgressHandler { _, progress in if progress.direction == .upload { line.show(progress) } }
        }
        if let maxFilesize { request.maxResponseBytes = maxFilesize }
        if let maxTime { request.timeLimit = .milliseconds(Int64(maxTime * 1000)) }
        if let cache { request.cache = CachePolicy(lifetime: .seconds(cache)) }
        do {
            if curl {
                print(try await service.curlCommand(for: request, redaction: Redaction.none))
                return
            }
            try output(try await service.send(request))
        } catch {
            FileHandle.standardError.write(Data("nk: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// `--stream` and `--json-lines`: the body's parts printed as they arrive.
    private func follow(on service: Service, method: HTTPRequest.Method, parameters: [String: JSON],
                        headerFields: HTTPFields) async throws {
        let target = RequestTarget(absolute: url)
        do {
            if jsonLines {
                let line = JSONParser(businessCode: businessCode,
                                      contentKeyPath: keyPath.map { JSONKeyPath($0) })
                let request = StreamRequest(target, method: method, parameters: parameters, headerFields: headerFields,
                                            parser: JSONLinesParser(line))
                try await write(streaming(request, on: service)) { value in
                    var data = try value.serialized()
                    data.append(UInt8(ascii: "\n"))
                    return data
                }
            } else {
                let request = StreamRequest(target, method: method, parameters: parameters, headerFields: headerFields,
                                            parser: ByteChunkParser())
                try await write(streaming(request, on: service)) { $0 }
            }
        } catch {
            FileHandle.standardError.write(Data("nk: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// `request` with the command's idle timeout and limits, as a sequence of its items.
    private func streaming<Item>(_ request: StreamRequest<Item>, on service: Service) -> ItemStream<Item> {
        request.timeout = .seconds(timeout)
        if let maxFilesize { request.maxResponseBytes = maxFilesize }
        if let maxTime { request.timeLimit = .milliseconds(Int64(maxTime * 1000)) }
        return service.stream(request)
    }

    /// Writes each item of `items` to standard output as `render` makes it, as it arrives.
    private func write<Item>(_ items: ItemStream<Item>, render: (Item) throws -> Data) async throws {
        for try await item in items { FileHandle.standardOutput.write(try render(item)) }
    }

    /// `--cache-dir`, else `$XDG_CACHE_HOME/nk`, else `~/.cache/nk`.
    private var cacheDirectory: URL {
        if let cacheDir { return URL(fileURLWithPath: cacheDir) }
        if let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("nk")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/nk")
    }

    /// The check `--code-key` and `--ok` ask for, if any.
    private var businessCode: BusinessCodeCheck? {
        codeKey.map { BusinessCodeCheck(codeKeyPath: JSONKeyPath($0), okValues: okValues.isEmpty ? [0] : okValues.map(JSON.init(codeText:))) }
    }

    private func render(_ value: JSON) throws -> String {
        if case .string(let text) = value { return text }
        return String(decoding: try value.serialized(pretty: true), as: UTF8.self)
    }

    /// The body -F or -T gives, if any: the form; the file; standard input, streamed as it is read.
    private func uploadBody(form: MultipartForm?, contentType: String?) throws -> RequestBody? {
        if let form { return .multipart(form) }
        guard let uploadFile else { return nil }
        let type = contentType ?? "application/octet-stream"
        if uploadFile == "-" { return .stream(RequestBodyStream(StandardInputChunks()), contentType: type) }
        let file = URL(fileURLWithPath: uploadFile)
        guard FileManager.default.isReadableFile(atPath: file.path) else { throw ValidationError("cannot read \(uploadFile)") }
        return .file(file, contentType: type)
    }

    /// The -F fields as a form, or nil without any.
    private func multipartForm() throws -> MultipartForm? {
        guard !forms.isEmpty else { return nil }
        var form = MultipartForm()
        for field in forms {
            let parts = field.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("form field \"\(field)\" is not 'name=value' or 'name=@path'") }
            guard parts[1].hasPrefix("@") else {
                form.append(parts[1], name: parts[0])
                continue
            }
            let spec = parts[1].dropFirst().split(separator: ";", maxSplits: 1).map(String.init)
            let type = spec.count > 1 && spec[1].hasPrefix("type=") ? String(spec[1].dropFirst(5)) : nil
            try form.append(file: URL(fileURLWithPath: spec[0]), name: parts[0], contentType: type)
        }
        return form
    }

    private static func splitParameter(_ text: String) -> (String, JSON) {
        let parts = text.split(separator: "=", maxSplits: 1)
        return (String(parts[0]), .string(parts.count > 1 ? String(parts[1]) : ""))
    }
}

extension JSON {
    /// A code typed on the command line: a number when it reads as one, else a string.
    init(codeText: String) {
        if let number = Int64(codeText) { self = .int(number) } else { self = .string(codeText) }
    }
}

/// Standard input in pieces of up to 64 KiB, read one at a time on a serial queue of its own, so
/// a blocking read holds no thread of Swift's cooperative pool, which the service's tasks need,
/// and no thread is made for each piece.
struct StandardInputChunks: AsyncSequence, Sendable {
    typealias Element = Data
    private static let reading = DispatchQueue(label: "nk.standard-input")

    func makeAsyncIterator() -> Iterator { Iterator() }

    struct Iterator: AsyncIteratorProtocol {
        mutating func next() async throws -> Data? {
            let piece: Result<Data, any Error> = await withCheckedContinuation { continuation in
                StandardInputChunks.reading.async {
                    continuation.resume(returning: Result { try FileHandle.standardInput.read(upToCount: 64 * 1024) ?? Data() })
                }
            }
            let data = try piece.get()
            return data.isEmpty ? nil : data
        }
    }
}
