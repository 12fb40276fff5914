import FuzzInflating
import FuzzSupport

/// brotli bodies (libbrotli) under a limit, one-shot and in pieces (`fuzzInflate`).
@main enum FuzzBrotli { static func main() { fuzzMain { fuzzInflate($0, codings: [.brotli]) } } }
