extension AnyRequest {
    /// Whether the service's ``ServiceConfiguration/cookies`` jar applies to this request (true
    /// by default): its cookies are sent with it and with its redirects, and the cookies its
    /// answers set are stored. False sends none and stores none.
    public var usesCookies: Bool {
        get { self[option: \.usesCookies] }
        set { self[option: \.usesCookies] = newValue }
    }
}
