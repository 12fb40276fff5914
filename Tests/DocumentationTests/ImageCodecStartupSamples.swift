// Getting Started, "Register image codecs at startup". That block shows its imports, so this
// file starts with them.
import NetworkKit
import NetworkKitImage

func registerImageCodecs() {
    // The built-in JPEG codec, with every decode kept on one thread.
    ImageCodecRegistry.shared.register(JPEGCodec(maxThreads: 1),
                                       forMIMETypes: ["image/jpeg", "image/jpg", "image/pjpeg"])
}
