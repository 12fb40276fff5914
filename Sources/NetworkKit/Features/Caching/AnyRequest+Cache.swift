extension AnyRequest {
    /// How this request uses the service's response cache; nil (the default) leaves the
    /// cache alone. Requests with a body from a file and downloads to disk are never cached.
    ///
    /// With ``CachePolicy/Mode-swift.enum/cacheThenNetwork`` the completion handlers are
    /// called once with the cached value (while ``state`` is still `.running` and
    /// ``RequestMetrics/cache`` is not yet known) and once more, after that call returned, with
    /// the network's answer when the request finishes. Without an entry they are called once.
    /// `Service.send` returns the network's answer; ``Service/replies(to:)`` yields both.
    public var cache: CachePolicy? {
        get { self[option: \.cache] }
        set { self[option: \.cache] = newValue }
    }
}

