# Used by assemble_all_e2e_kernels.sh to pick its CI sample.
# Greedy set cover: input lines "spec<TAB>feature"; prints the chosen specs,
# each the one covering the most features not yet covered (ties: lowest spec).
BEGIN { FS = "\t" }
{ if (!(($1, $2) in has)) { has[$1, $2] = 1; list[$1] = list[$1] SUBSEP $2; specs[$1] = 1 } }
END {
  while (1) {
    best = ""; bestNew = 0
    for (s in specs) {
      k = split(list[s], a, SUBSEP); c = 0
      for (i = 2; i <= k; ++i) if (!(a[i] in covered)) ++c
      if (c > bestNew || (c == bestNew && c > 0 && s + 0 < best + 0)) { best = s; bestNew = c }
    }
    if (bestNew == 0) break
    k = split(list[best], a, SUBSEP)
    for (i = 2; i <= k; ++i) covered[a[i]] = 1
    delete specs[best]
    print best
  }
}
