#if !CodeGeneration
// The generators link OpenAPIKit and Yams only under the `CodeGeneration` trait. A package that
// depends on NetworkKit never builds this target without it (the tools leave it out); in
// NetworkKit's own folder every target is built, so say how to build them all.
#error("NetworkKit's own targets need both of its traits: swift build --enable-all-traits (the scripts pass it)")
#endif
