import FixtureAPIExample
import Foundation
import NetworkKit
import PagedListExample
import PaymentsExample
import PetStoreExample
import Testing

/// The examples compiled when this target was built (the plugin generated them from a package
/// that depends on NetworkKit, as an app's would); here their requests and models are checked for
/// the constructs each shows. NetworkKit's own tests send the fixture API's requests to the server.
@Suite struct ExampleTests {
    @Test func fixtureAPI() throws {
        let profile = FixtureAPI.getProfile(id: 42)
        #expect(profile.target == .path("/profiles/42") && profile.method == .get)
        let form = FixtureAPI.echoForm(user: "ann", note: "hello")
        #expect(form.body == .form && form.parameters == ["user": "ann", "note": "hello"])
    }

    @Test func petStore() throws {
        let find = SwaggerPetstore.findPetsByStatus(status: .sold)
        #expect(find.target == .path("/pet/findByStatus") && find.parameters == ["status": "sold"])
        let update = SwaggerPetstore.updatePetWithForm(petId: 5, name: "Rex")
        #expect(update.target == .path("/pet/5") && update.method == .post && update.body == .form && update.parameters == ["name": "Rex"])
        let delete = SwaggerPetstore.deletePet(petId: 5, apiKey: "k")
        #expect(delete.method == .delete && delete.headerFields == [HTTPField.Name("api_key")!: "k"])
        let upload = SwaggerPetstore.uploadFile(petId: 5, additionalMetadata: "m", body: Data([1]))
        #expect(upload.parameters == ["additionalMetadata": "m"])
        #expect(upload.body == .data(Data([1]), contentType: "application/octet-stream"))
        let pet = try JSONDecoder().decode(SwaggerPetstore.Pet.self, from: Data(#"{"name": "Rex", "photoUrls": [], "status": "sold", "birthday": null}"#.utf8))
        #expect(pet.status == .sold && pet.birthday == nil)
        let error = SwaggerPetstore.ErrorModel(code: "E1", message: "m")
        #expect(error.code == "E1")
    }

    @Test func pagedList() throws {
        let list = IssueTracker.issuesListForRepo(owner: "apple", repo: "swift", state: .closed, perPage: 50, page: 2)
        #expect(list.target == .path("/repos/apple/swift/issues"))
        #expect(list.parameters == ["state": "closed", "per_page": 50, "page": 2])
        let events = IssueTracker.listEvents(startingAfter: "evt_1", limit: 10)
        #expect(events.parameters == ["starting_after": "evt_1", "limit": 10])
        let parser = try #require(IssueTracker.issuesListForRepo(owner: "a", repo: "b").parser as? ModelParser<[IssueTracker.Issue]>)
        let issues = try parser.parse(Response(url: nil, status: 200, data: Data(#"""
            [{"id": 1, "number": 7, "title": "Crash", "state": "open", "state_reason": null, "user": {"login": "a", "id": 2},
              "created_at": "2024-01-02T03:04:05Z", "updated_at": "2024-01-02T03:04:05.5Z", "closed_at": null}]
            """#.utf8)))
        #expect(issues.first?.user?.login == "a" && issues.first?.stateReason == nil)
    }

    @Test func paymentsOneOfAndEnvelope() throws {
        let request = try Payments.createPayment(idempotencyKey: UUID(), body: .init(
            amount: 500, currency: "EUR", method: .card(.init(type: .card, last4: "4242", brand: .visa))))
        guard case .data(let body, _) = request.body else {
            Issue.record("expected a JSON body")
            return
        }
        #expect(String(decoding: body, as: UTF8.self).contains(#""method":{"brand":"visa","last4":"4242","type":"card"}"#))
        let parser = try #require(Payments.getPayment(paymentId: "p1").parser as? ModelParser<Payments.Payment>)
        let payment = try parser.parse(Response(url: nil, status: 200, data: Data(#"""
            {"status": "ok", "result": {"id": "p1", "amount": 500, "currency": "EUR", "state": "requires_action",
             "method": {"type": "bank_transfer", "iban": "DE00"}, "created_at": "2024-06-01T00:00:00Z",
             "risk_level": 1, "refund": "not refundable"}}
            """#.utf8)))
        #expect(payment.method == .bankTransfer(.init(type: "bank_transfer", iban: "DE00")))
        #expect(payment.state == .requiresAction && payment.riskLevel == .value1 && payment.refund == .string("not refundable"))
        let failed = Result { try parser.parse(Response(url: nil, status: 200, data: Data(#"{"status": "declined", "error": "card declined"}"#.utf8))) }
        #expect("\(failed)".contains("card declined"))
        #expect(Payments.getReceipt(paymentId: "p1").parser is StringParser)
    }
}
