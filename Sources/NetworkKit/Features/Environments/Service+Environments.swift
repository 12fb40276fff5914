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
