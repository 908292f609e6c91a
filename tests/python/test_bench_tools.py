"""The analysis half of bench/gpu/sass_compare.py on nvdisasm-shaped listings
(the compile half needs Triton and a GPU machine)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu"))
import sass_compare  # noqa: E402


def listing(lines):
    """nvdisasm -c text: labels flush left, instructions as /*addr*/ TEXT ;"""
    out, addr = [".text.k:"], 0
    for line in lines:
        if line.endswith(":"):
            out.append(line)
        else:
            out.append("        /*%04x*/                   %s ;" % (addr, line))
            addr += 16
    return "\n".join(out)


# A tile loop around a K loop: the K loop's copy wrapped in a lane loop
# (ELECT ... BRA.U.ANY), its mbarrier wait retried in a stub after EXIT that
# jumps back into it.
KERNEL = listing([
    "S2R R0, SR_TID.X",
    ".L_x_1:",                       # tile loop
    "IMAD R1, R0, 0x8, RZ",
    "IMAD R2, R1, 0x8, RZ",
    ".L_x_2:",                       # K loop
    "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R1+URZ], R2",
    "@!P0 BRA `(.L_x_9)",
    ".L_x_3:",
    "BAR.SYNC.DEFER_BLOCKING 0x0",
    ".L_x_4:",                       # lane loop
    "ELECT P1, URZ, PT",
    "@P1 R2UR UR4, R2",
    "UTMALDG.2D [UR4], [UR6]",
    "@P1 BRA.U.ANY `(.L_x_4)",
    "HGMMA.64x256x16.F32 R24, gdesc[UR8].tnspB, R24",
    "HGMMA.64x256x16.F32 R24, gdesc[UR8].tnspB, R24, gsb0",
    "WARPGROUP.DEPBAR.LE gsb0, 0x1",
    "@!P2 BRA `(.L_x_2)",
    "STG.E.128 desc[UR4][R4.64], R8",
    "@!P3 BRA `(.L_x_1)",
    "EXIT",
    ".L_x_9:",                       # the wait's retry, after EXIT
    "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R1+URZ], R2",
    "@!P0 BRA `(.L_x_9)",
    "BRA `(.L_x_3)",
])


def test_the_hot_loop_is_the_innermost_loop_with_the_tensor_core_ops():
    a = sass_compare.analyse(KERNEL)
    assert a["instructions"] == 20
    # The K loop: from its label to its back branch, the lane loop inside it.
    assert a["loop"] == 11
    assert a["lane_loops"] == 1
    assert a["counts"]["HGMMA"] == 2 and a["counts"]["UTMALDG"] == 1 and a["counts"]["R2UR"] == 1
    assert a["counts"]["STG"] == 0 and a["counts"]["IMAD"] == 0


def test_straight_line_code_has_no_hot_loop():
    a = sass_compare.analyse(listing(["S2R R0, SR_TID.X", "LDG.E R1, desc[UR4][R2.64]", "STG.E desc[UR4][R2.64], R1",
                                      "EXIT"]))
    assert a["instructions"] == 4 and a["loop"] == 0


def test_without_tensor_cores_the_largest_innermost_loop():
    a = sass_compare.analyse(listing([
        ".L_x_1:", "LDG.E R1, desc[UR4][R2.64]", "FFMA R3, R1, R1, R3", "IADD3 R2, R2, 0x4, RZ",
        "@P0 BRA `(.L_x_1)",
        ".L_x_2:", "MUFU.EX2 R5, R3", "FADD R6, R5, R6", "FMUL R6, R6, R5", "IADD3 R7, R7, 0x1, RZ",
        "ISETP.NE.AND P1, PT, R7, 0x8, PT", "@P1 BRA `(.L_x_2)",
        "EXIT"]))
    assert a["loop"] == 6 and a["counts"]["MUFU"] == 1


def test_cases_file_parses():
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu", "sass_cases.txt")
    cases = sass_compare.read_cases(here)
    assert len(cases) >= 8
    for c in cases:
        assert os.path.exists(c["module"]) and c["warps"] in (4, 8) and c["stages"] >= 1
        assert all(k and v for k, v in c["constexprs"].items())
