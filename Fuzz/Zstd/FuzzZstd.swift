import FuzzInflating
import FuzzSupport

/// zstd bodies (libzstd) under a limit, one-shot and in pieces (`fuzzInflate`).
@main enum FuzzZstd { static func main() { fuzzMain { fuzzInflate($0, codings: [.zstd]) } } }
