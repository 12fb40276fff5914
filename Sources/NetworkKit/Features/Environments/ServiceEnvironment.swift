import Foundation

/// A named pair of servers — AIFNetworking's online and offline environments, or production,
/// staging and a developer's machine — that a service can switch between at runtime.
///
/// ```swift
/// var configuration = ServiceConfiguration(environments: [
///     ServiceEnvironment(name: "production", baseURL: URL(string: "https://api.example.com")),
///     ServiceEnvironment(name: "staging", baseURL: URL(string: "https://staging.example.com")),
/// ])
/// let api = Service(configuration: configuration)   // on the first: production
/// api.useEnvironment(named: "staging")              // requests in flight finish where they went
/// ```
public struct ServiceEnvironment: Sendable, Hashable {
    /// The name the environment is switched to by.
    public var name: String
    /// Where paths are resolved.
    public var baseURL: URL?
    /// Where paths of requests with `useCDN` are resolved.
    public var cdnURL: URL?

    /// Creates an environment.
    public init(name: String, baseURL: URL?, cdnURL: URL? = nil) {
        self.name = name
        self.baseURL = baseURL
        self.cdnURL = cdnURL
    }
}

extension Service {
    /// Switches to the environment called `name` in `configuration.environments`. Requests
    /// already started finish on the servers they were sent to (retries included); the next
    /// ones go to the new servers. Returns false, changing nothing, when there is no such environment.
    @discardableResult
    public func useEnvironment(named name: String) -> Bool {
        var found = false
        configure { configuration in
            guard let environment = configuration.environments.first(where: { $0.name == name }) else { return }
            configuration.environment = environment
            found = true
        }
        return found
    }
}
