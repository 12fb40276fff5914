import Foundation

/// What a request sends as its body, and so where its parameters go. One value says it all, so
/// no combination of settings can contradict itself.
///
/// ```swift
/// request.body = .json                                   // parameters as a JSON object body
/// request.body = .data(png, contentType: "image/png")    // raw bytes; parameters in the query
/// ```
public enum RequestBody: Sendable, Equatable {
    /// By method: parameters in the query for GET, HEAD and DELETE, as a form body for the others.
    case automatic
    /// No body; parameters go in the query.
    case none
    /// The parameters as an `application/x-www-form-urlencoded` body.
    case form
    /// The parameters as an `application/json` object body.
    case json
    /// These bytes with their content type; parameters go in the query.
    case data(Data, contentType: String)
    /// A file's contents with their content type, streamed from disk as they are sent;
    /// parameters go in the query.
    case file(URL, contentType: String)
    /// Chunks made as they are sent (see ``RequestBodyStream``), with their content type;
    /// parameters go in the query.
    case stream(RequestBodyStream, contentType: String)
    /// A `multipart/form-data` body (see `MultipartForm`); parameters go in the query.
    case multipart(MultipartForm)
}
