import AirflowExample
import Foundation
import NetworkKit
import Testing

/// Apache Airflow's REST API (a real OpenAPI 3.1 document, as FastAPI writes it): requests the
/// plugin generated, built and run against NetworkKit's fixture server, which answers a few of
/// them as Airflow documents them.
@Suite struct AirflowTests {
    @Test func requestsAreBuiltFromTheDocument() throws {
        let dags = AirflowApi.getDags(limit: 2, offset: 1, tags: ["etl"])
        #expect(dags.target == .path("/api/v2/dags") && dags.method == .get)
        #expect(dags.parameters == ["limit": 2, "offset": 1, "tags": ["etl"]])
        // A path parameter whose schema allows null (`anyOf: [integer, null]`) is still required.
        let log = AirflowApi.getLog(dagId: "etl", dagRunId: "r1", taskId: "t", tryNumber: 1)
        #expect(log.target == .path("/api/v2/dags/etl/dagRuns/r1/taskInstances/t/logs/1"))
        // The log is offered as JSON and as JSON Lines: a request for each.
        let stream = AirflowApi.getLogStream(dagId: "etl", dagRunId: "r1", taskId: "t", tryNumber: 1)
        #expect(stream.headerFields[.accept] == "application/jsonl, application/x-ndjson")
    }

    @Test func generatedRequestsRunAgainstTheFixtureServer() async throws {
        try await FixtureProcess.withServer { url in
            let service = Service(configuration: ServiceConfiguration(baseURL: url))
            let version = try await service.send(AirflowApi.getVersion())
            #expect(version.version == "3.3.2" && version.gitVersion == nil)
            let page = try await service.send(AirflowApi.getDags(limit: 2, offset: 1))
            #expect(page.dags.map(\.dagId) == ["reports", "cleanup"] && page.totalEntries == 3)
            #expect(page.dags.last?.isPaused == true)
            var states: [String] = []
            for try await line in service.stream(AirflowApi.waitDagRunUntilFinishedStream(dagId: "etl", dagRunId: "r1", interval: 0.5)) {
                states.append(line["state"]?.stringValue ?? "?")
            }
            #expect(states == ["queued", "running", "success"])
        }
    }
}
