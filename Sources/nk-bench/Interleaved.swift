/// Runs clients against each other on the same machine: `rounds` rounds of `count` operations per
/// client, in blocks of `count / 10` that rotate which client goes first, so a busy second hits
/// all of them, not one. Returns the seconds of each client in the round whose ratio of the first
/// client to the second is the median.
func interleavedMedian(
    count: Int, rounds: Int, inFlight: Int,
    _ clients: [(Int, Int) async throws -> Double]
) async throws -> [Double] {
    var results: [[Double]] = []
    for _ in 0..<rounds {
        results.append(try await interleavedRound(count: count, inFlight: inFlight, clients))
    }
    return medianRound(results)
}

/// One round: `count` operations per client in ten blocks that rotate which client goes first.
/// Returns each client's seconds.
func interleavedRound(
    count: Int, inFlight: Int,
    _ clients: [(Int, Int) async throws -> Double]
) async throws -> [Double] {
    precondition(clients.count >= 2, "a comparison needs two clients")  // the benchmark's own code, not input
    let blocks = 10
    var totals = [Double](repeating: 0, count: clients.count)
    for block in 0..<blocks {
        for offset in 0..<clients.count {
            let index = (block + offset) % clients.count
            totals[index] += try await clients[index](count / blocks, inFlight)
        }
    }
    return totals
}

/// The round whose ratio of the first client's seconds to the second's is the median.
func medianRound(_ rounds: [[Double]]) -> [Double] {
    rounds.sorted { $0[0] / $0[1] < $1[0] / $1[1] }[rounds.count / 2]
}
