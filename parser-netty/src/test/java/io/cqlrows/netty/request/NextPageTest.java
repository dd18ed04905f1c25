package io.cqlrows.netty.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cqlrows.core.CqlResult;
import io.cqlrows.core.Decoding;
import io.cqlrows.core.PagingState;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowsBodies;
import io.cqlrows.core.VoidResult;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.frame.Compression;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link QueryParameters#nextPage}: the parameters of the page after a ROWS result are the same
 * ones with its paging state, and there are none after the last page or a result without rows.
 */
class NextPageTest {
  /** The [option] id of int. */
  private static final int INT = 0x0009;

  private static final QueryParameters FIRST =
      QueryParameters.of(Consistency.LOCAL_QUORUM)
          .withValues(new byte[] {0, 0, 0, 7})
          .withPageSize(100)
          .withSerialConsistency(Consistency.LOCAL_SERIAL)
          .withDefaultTimestamp(42)
          .withSkipMetadata(true);

  @ParameterizedTest
  @ValueSource(ints = {4, 5})
  void continuesWithThePagingStateOfAPageWithMore(int version) {
    Optional<QueryParameters> next = FIRST.nextPage(page(version, "cafe"));
    QueryParameters p = next.orElseThrow();
    assertEquals(
        Optional.of(PagingState.of(new byte[] {(byte) 0xCA, (byte) 0xFE})), p.pagingState());
    assertEquals(FIRST.flags() | QueryParameters.FLAG_WITH_PAGING_STATE, p.flags());

    DecodedRequest sent =
        DecodedRequest.decodeEnvelopes(
                Compression.NONE,
                new Requests(version, Compression.NONE)
                    .query(ByteBufAllocator.DEFAULT, 0, "SELECT v FROM ks.t WHERE id = ?", p))
            .get(0);
    assertEquals("cafe", sent.pagingState());
    assertEquals(List.of("00000007"), sent.values(), "the same values");
    assertEquals(100, sent.pageSize(), "the same page size");
    assertEquals(Consistency.LOCAL_QUORUM.code(), sent.consistency());
    assertEquals(Consistency.LOCAL_SERIAL.code(), sent.serialConsistency());
    assertEquals(42L, sent.timestamp());
  }

  @Test
  void replacesThePagingStateItWasSentWith() {
    QueryParameters second = FIRST.nextPage(page(4, "01")).orElseThrow();
    QueryParameters third = second.nextPage(page(4, "02")).orElseThrow();
    assertEquals(Optional.of(PagingState.of(new byte[] {2})), third.pagingState());
  }

  @Test
  void thereIsNoPageAfterTheLast() {
    assertEquals(Optional.empty(), FIRST.nextPage(page(4, null)));
    QueryParameters second = FIRST.nextPage(page(4, "01")).orElseThrow();
    assertEquals(Optional.empty(), second.nextPage(page(4, null)));
  }

  @Test
  void thereIsNoPageAfterAResultWithoutRows() {
    assertEquals(Optional.empty(), FIRST.nextPage(new VoidResult()));
  }

  @Test
  void rejectsNull() {
    assertThrows(NullPointerException.class, () -> FIRST.nextPage(null));
  }

  /** A one-row ROWS result, with {@code Has_more_pages} and this paging state unless null. */
  private static CqlResult page(int version, String pagingStateHex) {
    RowsBodies.Builder body = RowsBodies.rows().column("id", INT).row("00000001");
    if (pagingStateHex != null) {
      body.pagingState(pagingStateHex);
    }
    return Decoding.read(new ResultReader(version), body.build(), new CountingSink(), null);
  }
}
