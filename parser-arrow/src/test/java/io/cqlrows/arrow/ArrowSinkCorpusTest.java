package io.cqlrows.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.testing.Corpus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every ROWS result of the uncompressed corpus captures (real Cassandra 5.0.6 bytes, every CQL
 * type) read into an {@link ArrowSink} and into a {@link RowsCollector}, and compared slot by slot
 * under the mapping; the allocator is closed at the end, which fails on any buffer still out.
 */
class ArrowSinkCorpusTest {

  @ParameterizedTest
  @CsvSource({
    "a-v4, conn-00, 4",
    "a-v4, conn-01, 4",
    "b-v5, conn-01, 5",
    "e-v4-paging, conn-01, 4"
  })
  void everyResultEqualsTheRowsCollectorsValues(String capture, String conn, int version) {
    assertEveryResult(capture, conn, version, ArrowMapping.defaults(), false);
  }

  @ParameterizedTest
  @CsvSource({"a-v4, conn-01, 4", "e-v4-paging, conn-01, 4"})
  void reusedVectorsGiveTheSameValues(String capture, String conn, int version) {
    assertEveryResult(capture, conn, version, ArrowMapping.defaults(), true);
  }

  @ParameterizedTest
  @CsvSource({"a-v4, conn-01, 4"})
  void varintAsBinaryAndDecimalsThatFitDecimal128(String capture, String conn, int version) {
    // the corpus's decimals include 1E+2147483647, which Decimal128 cannot hold: only the
    // varint half applies to every result, decimals are checked in ArrowSinkTest
    assertEveryResult(capture, conn, version, ArrowMapping.defaults().withVarintAsBinary(), false);
  }

  private static void assertEveryResult(
      String capture, String conn, int version, ArrowMapping mapping, boolean reuse) {
    byte[] s2c = Corpus.bytes(capture, conn + ".s2c.bin");
    List<Corpus.Envelope> envelopes =
        Corpus.envelopes(version == 5 ? Corpus.v5Envelopes(s2c) : s2c);
    ResultReader reader = new ResultReader(version);
    Map<String, ResultColumns> prepared = new HashMap<>();
    List<com.fasterxml.jackson.databind.JsonNode> expected =
        io.cqlrows.testing.CorpusAssertions.expectedResults(capture, conn);
    int results = 0;
    try (BufferAllocator allocator = new RootAllocator();
        ArrowSink sink = new ArrowSink(allocator, mapping).reuseVectors(reuse)) {
      for (Corpus.Envelope e : envelopes) {
        if (e.opcode() != 0x08) {
          continue;
        }
        ByteBuf body = e.bodyBuf();
        try {
          ResultColumns columns = null;
          if (body.getInt(0) == RowsResult.KIND && (body.getInt(4) & 0x0004) != 0) {
            String id = expected.get(results).get("request").get("prepared_id").asText();
            columns = prepared.get(id);
            assertNotNull(columns, "PREPARED result for " + id);
          }
          RowsCollector rows = new RowsCollector();
          CqlResult result = reader.read(body, rows, columns);
          if (result instanceof PreparedResult p) {
            prepared.put("0x" + ByteBufUtil.hexDump(p.id()), p.resultColumns());
            continue;
          }
          if (!(result instanceof RowsResult r)) {
            continue;
          }
          reader.read(body, sink, columns);
          assertSameRows(
              r.metadata().columns().specs(),
              rows.rows(),
              sink.root(),
              mapping,
              capture + " " + conn + " result " + results);
          results++;
        } finally {
          body.release();
        }
      }
    }
    assertEquals(expected.size(), results, "ROWS results");
  }

  private static void assertSameRows(
      List<ColumnSpec> columns,
      List<Row> rows,
      VectorSchemaRoot root,
      ArrowMapping mapping,
      String where) {
    assertEquals(rows.size(), root.getRowCount(), where + ": rows");
    assertEquals(columns.size(), root.getFieldVectors().size(), where + ": columns");
    for (int c = 0; c < columns.size(); c++) {
      FieldVector v = root.getVector(c);
      Field f = v.getField();
      assertEquals(columns.get(c).name(), f.getName(), where);
      assertEquals(columns.get(c).type().toString(), f.getMetadata().get(ArrowMapping.CQL_TYPE));
      assertTrue(f.isNullable());
      for (int r = 0; r < rows.size(); r++) {
        ArrowValues.assertSlot(
            v,
            r,
            columns.get(c).type(),
            rows.get(r).getObject(c),
            mapping,
            where + " row " + r + " column " + columns.get(c).name());
      }
    }
  }
}
