package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.cqlrows.testing.Architecture;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** parser-core's shape: no package cycles, only the JDK and netty-buffer, a listed public API. */
class CoreArchitectureTest {
  private static JavaClasses core;

  @BeforeAll
  static void importCore() {
    core = Architecture.mainClasses("io.cqlrows.core");
  }

  @Test
  void importsTheWholeModule() {
    // Guards the rules below against passing on an empty import.
    assertTrue(core.contain(ResultReader.class.getName()));
    assertTrue(core.contain("io.cqlrows.core.sink.ColumnarSink"));
  }

  @Test
  void packagesAreFreeOfCycles() {
    Architecture.noPackageCycles().check(core);
  }

  @Test
  void dependsOnlyOnTheJdkAndNettyBuffer() {
    Architecture.onlyTheJdkAndNettyBuffer("io.cqlrows.core").check(core);
  }

  @Test
  void everyPublicTypeIsListedInTheApiPage() {
    Set<String> listed = Architecture.listedTypes();
    assertEquals(Set.of(), Architecture.unlisted(core, listed), "public, not in docs/api.md");
    assertEquals(
        Set.of(),
        Architecture.staleListings(core, listed, "io.cqlrows.core"),
        "in docs/api.md, not a public top-level type");
  }
}
