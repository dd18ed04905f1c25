package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The decompression limit: its default, how the builders carry it, and what it accepts. */
class ParseLimitsTest {
  @Test
  void theDecompressionLimitDefaultsTo64MiBBelowTheFrameLimit() {
    ParseLimits limits = ParseLimits.defaults();
    assertEquals(64 << 20, ParseLimits.DEFAULT_MAX_DECOMPRESSED_LENGTH);
    assertEquals(ParseLimits.DEFAULT_MAX_DECOMPRESSED_LENGTH, limits.maxDecompressedLength());
    assertTrue(limits.maxDecompressedLength() < limits.maxFrameBodyLength());
  }

  @Test
  void theBuildersCarryTheDecompressionLimit() {
    ParseLimits limits = ParseLimits.builder().maxDecompressedLength(1000).maxColumns(7).build();
    assertEquals(1000, limits.maxDecompressedLength());
    ParseLimits copy = limits.toBuilder().maxColumns(8).build();
    assertEquals(1000, copy.maxDecompressedLength(), "toBuilder keeps it");
    assertEquals(8, copy.maxColumns());
    assertEquals(ParseLimits.DEFAULT_MAX_FRAME_BODY_LENGTH, copy.maxFrameBodyLength());
    assertTrue(copy.toString().contains("maxDecompressedLength=1000"), copy.toString());
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
  void rejectsADecompressionLimitThatIsNotPositive(int value) {
    ParseLimits.Builder builder = ParseLimits.builder();
    assertThrows(IllegalArgumentException.class, () -> builder.maxDecompressedLength(value));
    assertEquals(
        ParseLimits.DEFAULT_MAX_DECOMPRESSED_LENGTH,
        builder.build().maxDecompressedLength(),
        "the builder is unchanged");
  }
}
