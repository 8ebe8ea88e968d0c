package io.switchboard.bench.dynamodb;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a run of requests cost, by operation: requests, write units on the base tables and on their
 * global secondary indexes, read units, and the conditions lost; plus the units moto reported when
 * asked ({@code ReturnConsumedCapacity=TOTAL}), to set beside them. Immutable; {@link
 * CapacityMeter#snapshot} takes one, {@link #minus} gives what happened between two.
 */
public record Capacity(Map<String, Op> ops) {

  /**
   * One operation's figures.
   *
   * @param requests requests made (an SDK retry would not count again; moto never throttles, so
   *     none happens here)
   * @param tableWrites write units on base tables
   * @param indexWrites write units on global secondary indexes
   * @param reads read units
   * @param lostConditions writes whose condition failed, and cancelled transactions
   * @param motoUnits the capacity units moto's responses reported
   */
  public record Op(
      long requests,
      long tableWrites,
      long indexWrites,
      double reads,
      long lostConditions,
      double motoUnits) {

    static final Op ZERO = new Op(0, 0, 0, 0, 0, 0);

    Op plus(Op o) {
      return new Op(
          requests + o.requests,
          tableWrites + o.tableWrites,
          indexWrites + o.indexWrites,
          reads + o.reads,
          lostConditions + o.lostConditions,
          motoUnits + o.motoUnits);
    }

    Op minus(Op o) {
      return new Op(
          requests - o.requests,
          tableWrites - o.tableWrites,
          indexWrites - o.indexWrites,
          reads - o.reads,
          lostConditions - o.lostConditions,
          motoUnits - o.motoUnits);
    }

    /** Write units in all: the tables' and the indexes'. */
    public long writes() {
      return tableWrites + indexWrites;
    }
  }

  public Capacity {
    ops = Map.copyOf(ops);
  }

  static final Capacity NONE = new Capacity(Map.of());

  Capacity plus(String op, Op o) {
    Map<String, Op> next = new TreeMap<>(ops);
    next.merge(op, o, Op::plus);
    return new Capacity(next);
  }

  /** What this has beyond {@code earlier}, by operation (operations with no request left out). */
  public Capacity minus(Capacity earlier) {
    Map<String, Op> out = new TreeMap<>();
    ops.forEach(
        (name, op) -> {
          Op d = op.minus(earlier.ops.getOrDefault(name, Op.ZERO));
          if (d.requests() != 0) {
            out.put(name, d);
          }
        });
    return new Capacity(out);
  }

  /** All operations summed. */
  public Op total() {
    return ops.values().stream().reduce(Op.ZERO, Op::plus);
  }

  /** Requests by operation, as "PutItem 200; Query 200". */
  public String requestMix() {
    StringBuilder sb = new StringBuilder();
    ops.forEach(
        (name, op) ->
            sb.append(sb.isEmpty() ? "" : "; ").append(name).append(' ').append(op.requests()));
    return sb.toString();
  }
}
