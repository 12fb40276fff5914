import Foundation
import Hummingbird

extension FixtureRoutes {
    /// A few operations of the real public documents in Examples/ (Apache Airflow's REST API and
    /// Datadog's API v2), answered as those services document them, so that requests the
    /// NetworkKitOpenAPI plugin generated from them run against this server:
    /// - `GET /api/v2/version`: `{"version": "3.3.2", "git_version": null}`;
    /// - `GET /api/v2/monitor/health`: every component healthy;
    /// - `GET /api/v2/dags?limit=N&offset=O`: N (default 2) of 3 DAGs from O, with `total_entries`;
    /// - `GET /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/wait?interval=S`: JSON Lines
    ///   (`application/x-ndjson`) of the run's state: `queued`, `running`, then `success` with
    ///   its results;
    /// - `GET /api/v2/validate` (Datadog): the key's organization and scopes.
    static func addRealAPIs(to router: Router<BasicRequestContext>) {
        router.get("api/v2/version") { _, _ in
            json(#"{"version": "3.3.2", "git_version": null}"#)
        }
        router.get("api/v2/monitor/health") { _, _ in
            let healthy = #"{"status": "healthy", "latest_scheduler_heartbeat": "2026-11-27T10:00:00Z"}"#
            return json(#"{"metadatabase": {"status": "healthy"}, "scheduler": \#(healthy)}"#)
        }
        router.get("api/v2/dags") { request, _ in
            let limit = max(0, Int(query(request, "limit") ?? "") ?? 2)
            let offset = max(0, Int(query(request, "offset") ?? "") ?? 0)
            let names = ["etl_daily", "reports", "cleanup"]
            let dags = names.enumerated().dropFirst(offset).prefix(limit).map { index, name in
                #"{"dag_id": "\#(name)", "dag_display_name": "\#(name)", "is_paused": \#(index == 2), "is_stale": false, "#
                    + #""fileloc": "/dags/\#(name).py", "file_token": "t\#(index)", "tags": [], "owners": ["airflow"], "#
                    + #""timetable_partitioned": false, "timetable_periodic": true, "max_active_tasks": 16, "#
                    + #""max_consecutive_failed_dag_runs": 0, "has_task_concurrency_limits": false, "has_import_errors": false, "#
                    + #""is_backfillable": true}"#
            }
            return json(#"{"dags": [\#(dags.joined(separator: ", "))], "total_entries": \#(names.count)}"#)
        }
        router.get("api/v2/dags/{dag}/dagRuns/{run}/wait") { _, _ in
            let lines = [#"{"state": "queued"}"#, #"{"state": "running"}"#, #"{"state": "success", "results": {"op": 42}}"#]
            return respond(contentType: "application/x-ndjson", body: Data((lines.joined(separator: "\n") + "\n").utf8))
        }
        router.get("api/v2/validate") { _, _ in
            json(#"{"data": {"id": "550e8400-e29b-41d4-a716-446655440000", "type": "validate_v2", "#
                 + #""attributes": {"api_key_id": "a1b2c3d4", "api_key_scopes": ["remote_config_read"], "valid": true}}}"#)
        }
    }
}
