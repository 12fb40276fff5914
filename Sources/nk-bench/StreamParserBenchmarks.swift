import Foundation
import NetworkKit
import OpenAPIRuntime

/// The event-stream parser on a large captured stream, fed in 16 KiB chunks as a transport
/// delivers it: against splitting the same bytes into lines with the standard library (the
/// bound: ≤ 1.5), and against swift-openapi-runtime's decoding (printed; ours must beat it).
/// The other maintained Swift SSE parser on the package list, mattt/EventSource 1.1.1, does not
/// build on Linux. Medians of seven interleaved rounds.
enum StreamParserBenchmarks {
    static let chunkSize = 16 * 1024
    static let rounds = 7

    static func run() async throws {
        let stream = capturedStream()
        let chunks = stride(from: 0, to: stream.count, by: chunkSize).map {
            stream.subdata(in: $0..<min($0 + chunkSize, stream.count))
        }
        let expected = try ours(chunks)
        guard try await openAPIRuntime(chunks) == expected else { throw BenchError.wrongAnswer }
        var times: [[Double]] = []
        for _ in 0..<rounds {
            let lines = try seconds { _ = standardLibraryLines(chunks) }
            let kit = try seconds { _ = try ours(chunks) }
            let runtime = try await asyncSeconds { _ = try await openAPIRuntime(chunks) }
            times.append([kit, lines, runtime])
        }
        let kit = median(times.map { $0[0] }), lines = median(times.map { $0[1] })
        let runtime = median(times.map { $0[2] })
        let megabytes = Double(stream.count) / 1_048_576
        print(String(format: "SSE parser on %.1f MB (%d events, 16 KiB chunks): NetworkKit %.0f MB/s, %.0f events/s; "
                     + "ratio against standard-library line splitting %.2f (bound 1.5); "
                     + "swift-openapi-runtime %.0f MB/s (ratio %.2f)",
                     megabytes, expected, megabytes / kit, Double(expected) / kit, kit / lines,
                     megabytes / runtime, kit / runtime))
    }

    /// An LLM-style token stream: ids, a type, one JSON data line per event, a comment now and
    /// then, and a multi-line event every so often; about 24 MB.
    static func capturedStream() -> Data {
        var text = "retry: 3000\n\n"
        let words = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dogs", "naïve", "café", "😀"]
        for index in 1...240_000 {
            if index % 1000 == 0 { text += ": keep-alive\n\n" }
            text += "id: \(index)\nevent: token\n"
            text += #"data: {"index":\#(index),"token":"\#(words[index % words.count]) ","finish":null}"# + "\n"
            if index % 97 == 0 { text += "data: second line\n" }
            text += "\n"
        }
        return Data(text.utf8)
    }

    /// The kit's parser: events counted.
    static func ours(_ chunks: [Data]) throws -> Int {
        var parser = ServerSentEventParser()
        var count = 0
        for chunk in chunks { count += try parser.parse(chunk).count }
        return count + (try parser.finish()).count
    }

    /// The baseline: each chunk split at LF by the standard library, each line made a `String`,
    /// a partial last line carried to the next chunk.
    static func standardLibraryLines(_ chunks: [Data]) -> Int {
        var carried = Data()
        var lines = 0, characters = 0
        for chunk in chunks {
            carried.append(chunk)
            var pieces = carried.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            let last = pieces.removeLast()
            for piece in pieces {
                characters &+= String(decoding: piece, as: UTF8.self).utf8.count
                lines += 1
            }
            carried = Data(last)
        }
        return lines + (characters & 0)
    }

    /// swift-openapi-runtime's decoding of the same chunks.
    static func openAPIRuntime(_ chunks: [Data]) async throws -> Int {
        let slices = chunks.map { ArraySlice([UInt8]($0)) }
        var count = 0
        for try await event in ChunkSequence(chunks: slices).asDecodedServerSentEvents() where event.data != nil {
            count += 1
        }
        return count
    }

    static func seconds(_ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try body()
        return start.duration(to: .now).milliseconds / 1000
    }

    static func asyncSeconds(_ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await body()
        return start.duration(to: .now).milliseconds / 1000
    }
}

/// Chunks as an async sequence, as an HTTP body delivers them.
struct ChunkSequence: AsyncSequence, Sendable {
    let chunks: [ArraySlice<UInt8>]

    func makeAsyncIterator() -> IndexingIterator<[ArraySlice<UInt8>]>.AsyncAdapter {
        IndexingIterator<[ArraySlice<UInt8>]>.AsyncAdapter(base: chunks.makeIterator())
    }
}

extension IndexingIterator {
    /// A synchronous iterator as an asynchronous one.
    struct AsyncAdapter: AsyncIteratorProtocol {
        var base: IndexingIterator<Elements>

        mutating func next() async -> Elements.Element? {
            base.next()
        }
    }
}
