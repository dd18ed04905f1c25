package io.cqlrows.core.sink;

import static io.cqlrows.core.RowsBodies.custom;
import static io.cqlrows.core.RowsBodies.list;
import static io.cqlrows.core.RowsBodies.opt;
import static io.cqlrows.core.RowsBodies.vectorClass;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.cqlrows.core.Decoding;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowsBodies;
import org.junit.jupiter.api.Test;

class CountingSinkTest {

  private static void read(CountingSink sink, RowsBodies.Builder body) {
    Decoding.read(new ResultReader(4), body.build(), sink, null);
  }

  @Test
  void countsValuesNullsNotSetsAndEmpties() {
    CountingSink sink = new CountingSink();
    read(
        sink,
        RowsBodies.rows()
            .column("i", 0x0009)
            .column("s", 0x000D)
            .column("b", 0x0003)
            .column("v", custom(vectorClass("FloatType", 2)))
            .column("l", list(opt(0x0009)))
            .column("u", 0x000C)
            .row(
                "00000001",
                "61",
                "cafe",
                "3f800000 40200000",
                "00000000",
                "00112233445566778899aabbccddeeff")
            .row(null, "", "", null, "", null)
            .cell("")
            .cell(null)
            .cell("00")
            .raw("fffffffe fffffffe")
            .cell("")
            .rowCount(3));
    assertEquals(1, sink.results());
    assertEquals(3, sink.rows());
    // row 0: 6 values; row 1: text "" and blob "" are values; row 2: blob "00"
    assertEquals(6 + 2 + 1, sink.values());
    assertEquals(3 + 1, sink.nulls());
    assertEquals(2, sink.notSets());
    // row 1: empty list; row 2: empty int, empty uuid
    assertEquals(1 + 2, sink.empties());
    assertEquals(18, sink.cells());
  }

  @Test
  void accumulatesAcrossResultsUntilReset() {
    CountingSink sink = new CountingSink();
    read(sink, RowsBodies.rows().column("i", 0x0009).row("00000001").row((String) null));
    read(
        sink,
        RowsBodies.rows()
            .column("d", 0x0007)
            .column("t", 0x0012)
            .row("3ff0000000000000", "0000000000000001"));
    read(sink, RowsBodies.rows().column("i", 0x0009));
    assertEquals(3, sink.results());
    assertEquals(3, sink.rows());
    assertEquals(3, sink.values());
    assertEquals(1, sink.nulls());
    assertEquals(4, sink.cells());
    sink.reset();
    assertEquals(0, sink.results());
    assertEquals(0, sink.rows());
    assertEquals(0, sink.cells());
  }

  @Test
  void countsEveryTypedEventAsOneValue() {
    CountingSink sink = new CountingSink();
    read(
        sink,
        RowsBodies.rows()
            .column("b", 0x0004)
            .column("ti", 0x0014)
            .column("si", 0x0013)
            .column("bi", 0x0002)
            .column("f", 0x0008)
            .column("ts", 0x000B)
            .column("dt", 0x0011)
            .column("dv", custom(vectorClass("DoubleType", 1)))
            .column("iv", custom(vectorClass("Int32Type", 1)))
            .column("lv", custom(vectorClass("LongType", 1)))
            .column("dec", 0x0006)
            .row(
                "01",
                "01",
                "0001",
                "0000000000000001",
                "3f800000",
                "0000000000000001",
                "80000000",
                "3ff0000000000000",
                "00000001",
                "0000000000000001",
                "0000000001"));
    assertEquals(11, sink.values());
    assertEquals(11, sink.cells());
  }
}
