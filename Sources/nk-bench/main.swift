try runImageBenchmarks()
