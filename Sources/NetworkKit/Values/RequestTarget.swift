import Foundation

/// Where a request goes: an absolute URL, or a path that the service's environment resolves on
/// its base URL (or CDN URL, with ``AnyRequest/useCDN``).
public enum RequestTarget: Sendable, Hashable, CustomStringConvertible {
    /// An absolute URL, sent as it is.
    case url(URL)
    /// A path such as `/feed` or `feed?page=2`, resolved on the base URL by the service's
    /// environment (``ServiceConfiguration/environment``); a request whose path nothing resolves fails with
    /// `NetworkError.invalidURL` before anything is sent.
    case path(String)

    /// The target of an absolute URL given as text (user input, a link from an answer): `.url`
    /// when it parses as a URL. Text that does not parse, or parses to a relative URL, fails the
    /// request with `NetworkError.invalidURL` before anything is sent.
    package init(absolute string: String) {
        if let url = URL(string: string) {
            self = .url(url)
        } else {
            self = .path(string)
        }
    }

    /// The URL, or the path, as text.
    public var description: String {
        switch self {
        case .url(let url): url.absoluteString
        case .path(let path): path
        }
    }
}
