import FuzzInflating
import FuzzSupport

/// gzip and deflate (zlib) bodies under a limit, one-shot and in pieces (`fuzzInflate`).
@main enum FuzzInflate { static func main() { fuzzMain { fuzzInflate($0, codings: [.gzip, .deflate]) } } }
