# Shared by the scripts that run the benchmark binary (bench-guard, allocations, async-frames);
# source this file from the package root.
#   release_nk_bench: installs what the benchmark needs (scripts/bootstrap demo), builds `nk-bench`
#   in release with every trait, and prints the binary's path; what the tools print goes to stderr.
release_nk_bench() {
  local flags=(-c release --enable-all-traits)
  scripts/bootstrap demo >&2
  swift build "${flags[@]}" --product nk-bench >&2
  echo "$(swift build "${flags[@]}" --show-bin-path)/nk-bench"
}
