# An awk function shared by scripts/bench-compare and scripts/bench-guard; source this file and put
# "$median_awk" before the awk program that calls it.
#   median(list): the median of the space-separated numbers in `list` (the mean of the two middle
#   ones for an even count, 0 for none); sets the globals `low` and `high` to the smallest and the
#   largest.
median_awk='
  function median(list,   n, values, i, j, t) {
    n = split(list, values, " ")
    if (n == 0) { low = high = 0; return 0 }
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (values[j] + 0 < values[i] + 0) { t = values[i]; values[i] = values[j]; values[j] = t }
    low = values[1]; high = values[n]
    return n % 2 ? values[(n + 1) / 2] : (values[n / 2] + values[n / 2 + 1]) / 2
  }
'
