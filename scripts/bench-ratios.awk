# Reads nk-bench output and prints one line per ratio: "KEY<TAB>VALUE".
# KEY is the text of the line before its first ": " (what was measured), followed by " · NAME"
# when the ratio has a name ("ratio NIO/bare 1.21" → "… · NIO/bare"); VALUE is the number.
# A second ratio of the same name on a line is "KEY #2". Every "ratio" on a line counts; "ratios" (a heading) and the numbers in parentheses after a
# ratio (its rounds) do not. Used by scripts/bench-compare and scripts/bench-guard.
/ratio / {
  line = $0
  colon = index(line, ": ")
  key = colon > 0 ? substr(line, 1, colon - 1) : line
  sub(/^[ \t]+/, "", key)
  rest = colon > 0 ? substr(line, colon + 2) : line
  delete seen
  while ((at = index(rest, "ratio ")) > 0) {
    rest = substr(rest, at + 6)
    n = split(rest, words, " ")
    name = ""
    for (i = 1; i <= n; i++) {
      word = words[i]
      if (word ~ /^[0-9]+\.[0-9]+[,;)]*$/) {
        sub(/[,;)]+$/, "", word)
        label = key (name == "" ? "" : " · " name)
        if (++seen[label] > 1) label = label " #" seen[label]   # a second unnamed ratio on the line
        printf "%s\t%s\n", label, word
        break
      }
      if (word ~ /^\(/) break   # "ratio (…" is prose, not a figure
      name = name == "" ? word : name " " word
    }
  }
}
