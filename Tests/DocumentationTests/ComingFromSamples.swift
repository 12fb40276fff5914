import Foundation
import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Coming from YTKNetwork, RTNetworking, SCNetworkKit or DYNetwork

// YTKNetwork's GetUserInfoApi: requestUrl, requestArgument, jsonValidator, cacheTimeInSeconds,
// requestPriority and requestAuthorizationHeaderFieldArray, as properties of one request.
func getUserInfo(userID: String, clientPassword: String) -> Request<JSON> {
    let request = Request(path: "/iphone/users", parameters: ["id": .string(userID)],
                          parser: JSONParser(shape: ["nick": .string, "level": .number]))
    request.cache = CachePolicy(lifetime: .seconds(180))
    request.priority = .high
    request.interceptors = [BasicAuthentication(user: "ios", password: clientPassword)]
    return request
}

func showUserInfo(api: Service, clientPassword: String) {
    let request = getUserInfo(userID: "42", clientPassword: clientPassword)
    request.addCompletionHandler { _, result in     // on the main actor
        switch result {
        case .success(let user): print(user["nick"]?.stringValue ?? "")
        case .failure(let error): print(error)          // a NetworkError
        }
    }
    api.start(request)                                  // or: let user = try await api.send(request)
}

// RTNetworking's AIFService with AIFSignatureProtocol, DYNetwork's service protocol.
func makeShopService(onlineKey: String, offlineKey: String, token: @escaping @Sendable () -> String) -> Service {
    var shop = ServiceConfiguration(environments: [
        ServiceEnvironment(name: "online", baseURL: URL(string: "https://shop.example.com/api/v1"),
                           values: ["signingKey": onlineKey, "clientID": "ios"]),
        ServiceEnvironment(name: "offline", baseURL: URL(string: "https://test.shop.example.com/api/v1"),
                           values: ["signingKey": offlineKey, "clientID": "ios-test"]),
    ])
    shop.commonHeaderFields = { [.accept: "application/json", .token: token()] }
    shop.commonParameters = { ["platform": "ios"] }
    shop.signer = EnvironmentKeySigner()   // from "Keys per environment" in The Request Pipeline
    shop.responseValidation = ResponseValidation(acceptableContentTypes: ["application/json"],
                                                 requiredKeyPaths: ["sign"])
    shop.envelope = ResponseEnvelope(businessCode: BusinessCodeCheck(codeKeyPath: "code", okValues: ["100"], messageKeyPaths: ["msg"]),
                                     contentKeyPath: "data")
    return Service(configuration: shop)
}

func loadGoods(shop: Service, id: Int) async throws -> JSON {
    // {"code": "100", "msg": "ok", "sign": "…", "data": {…}}
    let reply = try await shop.reply(to: Request(path: "/goods/\(id)", parser: JSONParser()))
    if let status = reply.businessStatus {
        print(status.code, status.message ?? "")        // "100" ok
    }
    let ping = Request(path: "/ping", parser: StringParser())
    ping.skippedServiceDefaults = [.commonHeaderFields, .commonParameters, .responseValidation]
    print(try await shop.send(ping))
    return reply.value                                  // what was at "data"
}
