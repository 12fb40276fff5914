import FixtureAPI
import FixtureServer
import Foundation
import NetworkKit

/// `nk demo`: requests generated at build time from an OpenAPI document (Examples/FixtureAPI) by
/// the NetworkKitOpenAPI plugin.
extension DemoTour {
    var generatedSteps: [Step] {
        [
            ("Generated from OpenAPI: typed path parameter, envelope code check, snake_case model with a date", {
                let profile = try await service.send(FixtureAPI.getProfile(id: 7))
                let failure = await service.result(of: FixtureAPI.getProfile(id: 7, code: 404))
                guard case .failure(.businessCode(let code, let message)) = failure else {
                    throw DemoError.unexpected("\(failure)")
                }
                return "FixtureAPI.getProfile(id: 7) → \(profile.displayName), \(profile.role), created "
                    + "\(profile.createdAt.formatted(.iso8601)); with ?code=404 → businessCode(\(code), \(message ?? "nil"))"
            }),
            ("Generated form body, download to disk and cache lifetime from networkkit-openapi.yaml", {
                let echo = try await service.send(FixtureAPI.echoForm(user: "ann", note: "hi there", tags: ["a"]))
                let folder = try DemoFolder()
                let file = try await service.send(FixtureAPI.downloadFile(name: "generated.bin", to: .directory(folder.url),
                                                                          size: 64 * 1024))
                let key = "generated-\(UUID().uuidString.prefix(8))"
                var outcomes: [String] = []
                for _ in 0..<2 { outcomes.append("\(try await service.reply(to: FixtureAPI.getCounted(key: key)).metrics.cache)") }
                return "echoForm sent \(echo.body); downloadFile wrote \(file.byteCount) bytes to \(file.url.lastPathComponent); "
                    + "getCounted twice → \(outcomes.joined(separator: ", "))"
            }),
        ]
    }
}
