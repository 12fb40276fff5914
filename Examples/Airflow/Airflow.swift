// Apache Airflow's REST API, OpenAPI 3.1 as FastAPI generates it (apache-airflow-core 3.3.2; see
// third-party/): the NetworkKitOpenAPI plugin generates `AirflowAPI` from openapi.yaml. ExampleTests
// builds requests with it; RealDocumentTests in NetworkKit's tests run some against the fixture
// server.
