//===- IRTest.cpp - Use-lists, RAUW, erase, clone, walk, printing ---------===//

#include <gtest/gtest.h>

#include "tessera/ir/Builder.h"

using namespace tessera::ir;

namespace {

/// A detached tt.func @name with the given parameter types and an entry block.
Operation* makeFunc(const std::string& name, const std::vector<Type>& params) {
  AttrMap attrs;
  attrs["sym_name"] = name;
  Operation* func = Operation::create(OpCode::Func, {}, {}, {}, std::move(attrs), 1);
  Block* entry = func->region(0).addBlock();
  for (Type t : params) entry->addArgument(t);
  return func;
}

TEST(IR, UseListsTrackEveryOperand) {
  std::unique_ptr<Operation> func(makeFunc("f", {Type::i32()}));
  Block& body = funcBody(func.get());
  OpBuilder b(&body);
  Value x = body.argument(0);
  Value c = b.constantInt(Type::i32(), 3);
  Operation* add = b.create(OpCode::AddI, {Type::i32()}, {x, c});
  Operation* mul = b.create(OpCode::MulI, {Type::i32()}, {add->result(), add->result()});
  EXPECT_TRUE(x.hasOneUse());
  EXPECT_EQ(add->result().uses().size(), 2u);
  EXPECT_FALSE(mul->result().hasUses());
  for (OpOperand* use : add->result().uses()) EXPECT_EQ(use->owner, mul);

  mul->setOperand(1, c);
  EXPECT_TRUE(add->result().hasOneUse());
  EXPECT_EQ(c.uses().size(), 2u);
  mul->eraseOperand(0);
  EXPECT_FALSE(add->result().hasUses());
  EXPECT_EQ(mul->numOperands(), 1u);
  EXPECT_EQ(mul->operandSlot(0).index, 0u);
  EXPECT_EQ(mul->operand(0), c);
  func->dropAllReferences();
  func->region(0).front();  // still alive
}

TEST(IR, ReplaceAllUsesWith) {
  std::unique_ptr<Operation> func(makeFunc("f", {Type::i32(), Type::i32()}));
  Block& body = funcBody(func.get());
  OpBuilder b(&body);
  Value x = body.argument(0), y = body.argument(1);
  Operation* a = b.create(OpCode::AddI, {Type::i32()}, {x, x});
  Operation* s = b.create(OpCode::SubI, {Type::i32()}, {x, a->result()});
  x.replaceAllUsesWith(y);
  EXPECT_FALSE(x.hasUses());
  EXPECT_EQ(y.uses().size(), 3u);
  EXPECT_EQ(a->operand(0), y);
  EXPECT_EQ(a->operand(1), y);
  EXPECT_EQ(s->operand(0), y);
  EXPECT_EQ(s->operand(1), a->result());
  // The use-list stays consistent after unlinking from the middle.
  a->setOperand(1, x);
  EXPECT_EQ(y.uses().size(), 2u);
  EXPECT_TRUE(x.hasOneUse());
}

TEST(IR, EraseAndMove) {
  std::unique_ptr<Operation> func(makeFunc("f", {Type::i32()}));
  Block& body = funcBody(func.get());
  OpBuilder b(&body);
  Value x = body.argument(0);
  Operation* a = b.create(OpCode::AddI, {Type::i32()}, {x, x});
  Operation* m = b.create(OpCode::MulI, {Type::i32()}, {x, x});
  Operation* r = b.create(OpCode::Return, {}, {});
  EXPECT_EQ(body.size(), 3u);
  EXPECT_EQ(body.terminator(), r);
  m->moveBefore(a);
  EXPECT_EQ(body.ops(), (std::vector<Operation*>{m, a, r}));
  m->moveAfter(r);
  EXPECT_EQ(body.ops(), (std::vector<Operation*>{a, r, m}));
  EXPECT_EQ(body.terminator(), nullptr);
  m->erase();
  EXPECT_EQ(x.uses().size(), 2u);  // only the addi's two operands remain
  a->erase();
  EXPECT_FALSE(x.hasUses());
  EXPECT_EQ(body.front(), r);
  EXPECT_EQ(body.back(), r);
  EXPECT_EQ(r->prevOp(), nullptr);
}

TEST(IR, BuilderInsertionPointsAndGuard) {
  std::unique_ptr<Operation> func(makeFunc("f", {}));
  Block& body = funcBody(func.get());
  OpBuilder b(&body);
  Operation* ret = b.create(OpCode::Return, {}, {});
  b.setInsertionPoint(ret);
  Value c1 = b.constantInt(Type::i8(), 255);  // canonical: sign-extended
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&body);
    b.setLoc(Location::get("k.py", 3, 4));
    b.constantBool(true);
  }
  Value c2 = b.constantFloat(Type::f32(), 0.5);
  auto ops = body.ops();
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[1], c1.definingOp());
  EXPECT_EQ(ops[2], c2.definingOp());
  EXPECT_EQ(ops[3], ret);
  EXPECT_EQ(c1.definingOp()->intAttr("value"), -1);
  EXPECT_EQ(ops[0]->intAttr("value"), 1);
  EXPECT_EQ(ops[0]->loc().line, 3);
  EXPECT_FALSE(c2.definingOp()->loc().known());
  EXPECT_EQ(c2.definingOp()->floatAttr("value"), 0.5);
  EXPECT_EQ(Location::get("k.py", 1, 1).file, ops[0]->loc().file);  // interned
}

/// f(%lb, %ub) { %c = 1; %r = scf.for %lb, %ub, %c, %init(=lb) { yield iv + acc }; return %r }
Operation* makeLoopFunc() {
  Operation* func = makeFunc("loop", {Type::i32(), Type::i32()});
  Block& body = funcBody(func);
  OpBuilder b(&body);
  Value lb = body.argument(0), ub = body.argument(1);
  Value step = b.constantInt(Type::i32(), 1);
  Operation* loop = b.create(OpCode::For, {Type::i32()}, {lb, ub, step, lb}, {}, 1);
  Block* loopBody = loop->region(0).addBlock();
  Value iv = loopBody->addArgument(Type::i32());
  Value acc = loopBody->addArgument(Type::i32());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(loopBody);
    Value sum = b.create(OpCode::AddI, {Type::i32()}, {iv, acc})->result();
    Value scaled = b.create(OpCode::MulI, {Type::i32()}, {sum, ub})->result();
    b.create(OpCode::Yield, {}, {scaled});
  }
  b.create(OpCode::Return, {}, {loop->result()});
  func->setAttr("result_types", std::vector<Type>{Type::i32()});
  return func;
}

TEST(IR, CloneWithRegionsRemapsNestedUses) {
  std::unique_ptr<Operation> func(makeLoopFunc());
  Block& body = funcBody(func.get());
  Operation* loop = body.ops()[1];
  ASSERT_TRUE(loop->is(OpCode::For));

  IRMapping mapping;
  Operation* copy = loop->clone(mapping);
  copy->setOperand(3, body.argument(1));
  body.insert(body.back(), copy);
  Block& newBody = copy->region(0).front();
  Block& oldBody = loop->region(0).front();
  // Nested uses of the region's own arguments point at the new arguments,
  // nested uses of outer values (%ub) stay.
  Operation* newAdd = newBody.front();
  EXPECT_EQ(newAdd->operand(0), newBody.argument(0));
  EXPECT_EQ(newAdd->operand(1), newBody.argument(1));
  EXPECT_EQ(newAdd->nextOp()->operand(1), body.argument(1));
  EXPECT_EQ(newBody.back()->operand(0), newAdd->nextOp()->result());
  EXPECT_EQ(mapping.lookupOrNull(loop->result()), copy->result());
  EXPECT_EQ(mapping.lookupOrNull(oldBody.argument(1)), newBody.argument(1));
  EXPECT_EQ(oldBody.argument(0).uses().size(), 1u);
  // ub of both loops, both muls, the new init.
  EXPECT_EQ(body.argument(1).uses().size(), 5u);
  EXPECT_EQ(copy->parentOp(), func.get());
  EXPECT_EQ(newAdd->parentOp(), copy);
  EXPECT_TRUE(func->isAncestorOf(newAdd));
  EXPECT_FALSE(loop->isAncestorOf(newAdd));
}

TEST(IR, WalkOrders) {
  std::unique_ptr<Operation> func(makeLoopFunc());
  std::vector<std::string_view> pre, post;
  func->walk([&](Operation* op) { pre.push_back(op->name()); });
  func->walkPostOrder([&](Operation* op) { post.push_back(op->name()); });
  std::vector<std::string_view> expectPre = {"tt.func",    "arith.constant", "scf.for",  "arith.addi",
                                             "arith.muli", "scf.yield",      "tt.return"};
  std::vector<std::string_view> expectPost = {"arith.constant", "arith.addi", "arith.muli", "scf.yield",
                                              "scf.for",        "tt.return",  "tt.func"};
  EXPECT_EQ(pre, expectPre);
  EXPECT_EQ(post, expectPost);
}

TEST(IR, PostOrderWalkMayEraseVisitedOps) {
  std::unique_ptr<Operation> func(makeLoopFunc());
  // Erase every op without uses, innermost first, until nothing changes.
  int erased = 0;
  func->walkPostOrder([&](Operation* op) {
    if (op->is(OpCode::MulI)) {
      op->result().replaceAllUsesWith(op->operand(0));
      op->erase();
      ++erased;
    }
  });
  EXPECT_EQ(erased, 1);
  Operation* loop = funcBody(func.get()).ops()[1];
  Block& loopBody = loop->region(0).front();
  EXPECT_EQ(loopBody.size(), 2u);
  EXPECT_EQ(loopBody.back()->operand(0), loopBody.front()->result());
}

TEST(IR, ModuleOwnsAndLooksUpFunctions) {
  Module m;
  m.addFunction(makeLoopFunc());
  m.addFunction(makeFunc("other", {}));
  EXPECT_EQ(funcName(m.lookup("other")), "other");
  EXPECT_EQ(m.lookup("missing"), nullptr);
  int count = 0;
  m.walk([&](Operation*) { ++count; });
  EXPECT_EQ(count, 8);
  m.eraseFunction(m.lookup("loop"));
  EXPECT_EQ(m.functions().size(), 1u);
}

TEST(IR, AttributeHelpers) {
  std::unique_ptr<Operation> op(Operation::create(OpCode::Load, {}, {Type::f32()}, {}));
  op->setAttr("volatile", true);
  op->setAttr("boundary_check", std::vector<int64_t>{0, 1});
  op->setAttr("cache", std::string("ca"));
  EXPECT_TRUE(op->boolAttr("volatile"));
  EXPECT_EQ(op->intArrayAttr("boundary_check"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(op->strAttr("cache"), "ca");
  EXPECT_EQ(op->strAttr("evict", "none"), "none");
  EXPECT_EQ(op->intAttr("missing", 7), 7);
  op->removeAttr("cache");
  EXPECT_FALSE(op->hasAttr("cache"));
  EXPECT_EQ(attributeToString(Attribute(1e-5)), "1e-05");
  EXPECT_EQ(attributeToString(Attribute(2.0)), "2.0");
  EXPECT_EQ(attributeToString(Attribute(std::string("a\"b\n"))), "\"a\\\"b\\n\"");
  EXPECT_EQ(attributeToString(Attribute(std::vector<Type>{Type::f32(), Type::i1()})),
            "types<f32, i1>");
  EXPECT_EQ(attributeToString(Attribute(Type::pointer(Type::f16()))), "type<!tt.ptr<f16>>");
  EXPECT_EQ(attributeToString(Attribute(-std::numeric_limits<double>::infinity())), "-inf");
}

TEST(IR, PrintCanonicalNames) {
  Module m;
  Operation* func = makeLoopFunc();
  func->setAttr("arg0.divisibility", int64_t(16));
  func->setAttr("kernel", true);
  m.addFunction(func);
  const char* expected =
      "tt.func @loop(%arg0: i32 {divisibility = 16}, %arg1: i32) -> (i32) attributes {kernel = true} {\n"
      "  %0 = arith.constant {value = 1} : i32\n"
      "  %1 = scf.for %arg0, %arg1, %0, %arg0 : i32 {\n"
      "  ^bb0(%arg2: i32, %arg3: i32):\n"
      "    %2 = arith.addi %arg2, %arg3 : i32\n"
      "    %3 = arith.muli %2, %arg1 : i32\n"
      "    scf.yield %3\n"
      "  }\n"
      "  tt.return %1\n"
      "}\n";
  EXPECT_EQ(print(m), expected);
  // Printing one nested op uses the function's numbering.
  Operation* mul = funcBody(func).ops()[1]->region(0).front().ops()[1];
  EXPECT_EQ(print(mul), "%3 = arith.muli %2, %arg1 : i32");
  mul->setLoc(Location::get("k.py", 5, 9));
  EXPECT_EQ(print(mul, PrintOptions{true}), "%3 = arith.muli %2, %arg1 : i32 loc(\"k.py\":5:9)");
}

TEST(IR, PrintMultiResultAndEmptyRegions) {
  std::unique_ptr<Operation> func(makeFunc("g", {Type::tensor({4, 2}, Type::f32()), Type::i1()}));
  Block& body = funcBody(func.get());
  OpBuilder b(&body);
  Operation* split = b.create(OpCode::Split, {Type::tensor({4}, Type::f32()), Type::tensor({4}, Type::f32())},
                              {body.argument(0)});
  Operation* ifOp = b.create(OpCode::If, {}, {body.argument(1)}, {}, 2);
  ifOp->region(0).addBlock();
  b.create(OpCode::Return, {}, {split->result(1)});
  EXPECT_EQ(print(func.get()),
            "tt.func @g(%arg0: tensor<4x2xf32>, %arg1: i1) {\n"
            "  %0:2 = tt.split %arg0 : tensor<4xf32>, tensor<4xf32>\n"
            "  scf.if %arg1 {\n"
            "  ^bb0:\n"
            "  } {}\n"
            "  tt.return %0#1\n"
            "}");
}

}  // namespace
