# The features of one kernel specialization's Tile IR, for choosing a sample
# that covers every op family (assemble_all_e2e_kernels.sh): each op as
# "op:element type" ("arith.addf:bf16", "tt.reduce:f32"), each tt.dot with
# its whole result type, and the kernel file. Prints "SPEC<TAB>FEATURE".
#   awk -v spec=N -v file=NAME -f op_features.awk K.ttir
BEGIN { print spec "\tfile:" file }
match($0, /(= |^ *)(tt|arith|math|scf|cf)\.[a-z_0-9]+/) {
  op = substr($0, RSTART, RLENGTH)
  sub(/^(= | *)/, "", op)
  type = ""
  if (match($0, /: [^:]*$/)) {
    full = substr($0, RSTART + 2)
    type = full
    gsub(/tensor<([0-9]+x)*/, "", type)
    gsub(/[>{}].*$/, "", type)
    gsub(/ /, "", type)
  }
  print spec "\t" op ":" type
  if (op == "tt.dot") print spec "\tdot:" full
}
