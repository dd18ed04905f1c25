package io.cqlrows.core.sink;

import static io.cqlrows.core.RowsBodies.list;
import static io.cqlrows.core.RowsBodies.map;
import static io.cqlrows.core.RowsBodies.opt;
import static io.cqlrows.core.RowsBodies.set;
import static io.cqlrows.core.RowsBodies.tuple;
import static io.cqlrows.core.RowsBodies.udt;
import static io.cqlrows.core.RowsBodies.vector;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.Decoding;
import io.cqlrows.core.RowsBodies;
import io.cqlrows.core.TypeSamples;
import io.cqlrows.core.TypeSamples.Sample;
import io.netty.buffer.ByteBuf;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@link Row}'s getters by index and by name, and its {@code toString()}. */
class RowTest {
  /** Rows with a column per sample: 0 values, 1 NULLs, 2 not-sets, 3 empties. */
  private static List<Row> rowsOfEverySample() {
    List<Sample> samples = TypeSamples.all();
    RowsBodies.Builder b = RowsBodies.rows();
    String[] values = new String[samples.size()];
    String[] empties = new String[samples.size()];
    for (int i = 0; i < samples.size(); i++) {
      b.column("c" + i, samples.get(i).option());
      values[i] = samples.get(i).cell();
      empties[i] = "";
    }
    b.row(values).row(new String[samples.size()]).raw("fffffffe".repeat(samples.size()));
    return Decoding.rows(b.row(empties).rowCount(4).build());
  }

  /** The public getters of {@link Row} taking one parameter of {@code type}, by name. */
  private static Map<String, Method> gettersTaking(Class<?> type) {
    Map<String, Method> getters = new TreeMap<>();
    for (Method m : Row.class.getDeclaredMethods()) {
      if (Modifier.isPublic(m.getModifiers())
          && m.getParameterCount() == 1
          && m.getParameterTypes()[0] == type
          && !m.getName().equals("equals")
          && !m.getName().equals("indexOf")) {
        getters.put(m.getName(), m);
      }
    }
    return getters;
  }

  @Test
  void everyGetterByIndexHasOneByNameAndTheOtherWayRound() {
    Map<String, Method> byIndex = gettersTaking(int.class);
    Map<String, Method> byName = gettersTaking(String.class);
    assertEquals(byIndex.keySet(), byName.keySet());
    for (Method m : byIndex.values()) {
      assertEquals(m.getGenericReturnType(), byName.get(m.getName()).getGenericReturnType());
    }
  }

  /** Every getter by name gives what the getter by index gives, or throws what it throws. */
  @Test
  void gettersByNameReadAsGettersByIndex() throws Exception {
    Map<String, Method> byName = gettersTaking(String.class);
    int compared = 0;
    for (Row r : rowsOfEverySample()) {
      for (Method index : gettersTaking(int.class).values()) {
        for (int c = 0; c < r.size(); c++) {
          Object expected = call(index, r, c);
          Object actual = call(byName.get(index.getName()), r, "c" + c);
          String where = index.getName() + " of column " + c + " " + r.columns().get(c).type();
          if (expected.getClass().isArray()) {
            assertArrayEquals(new Object[] {expected}, new Object[] {actual}, where);
          } else {
            assertEquals(expected, actual, where);
          }
          compared++;
        }
      }
    }
    assertFalse(compared == 0);
  }

  /** What a getter returns, boxed, or the class of what it throws. */
  private static Object call(Method getter, Row r, Object column) throws IllegalAccessException {
    try {
      Object v = getter.invoke(r, column);
      return v == null ? "null" : v;
    } catch (InvocationTargetException e) {
      return e.getCause().getClass();
    }
  }

  @Test
  void rejectsANameThatIsNotExactlyAColumns() {
    Row r = rowsOfEverySample().get(0);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> r.getShort("C0"));
    assertTrue(e.getMessage().startsWith("no column 'C0' in "), e.getMessage());
  }

  @Test
  void toStringShowsBlobsInHexAndArraysByElementAtAnyDepth() {
    ByteBuf body =
        RowsBodies.rows()
            .column("id", opt(0x09))
            .column("s", opt(0x0D))
            .column("b", opt(0x03))
            .column("e", opt(0x03))
            .column("n", opt(0x09))
            .column("fv", vector("FloatType", 2))
            .column("dv", vector("DoubleType", 1))
            .column("iv", vector("Int32Type", 2))
            .column("lv", vector("LongType", 1))
            .column("lb", list(opt(0x03)))
            .column("sb", set(opt(0x03)))
            .column("m", map(opt(0x03), vector("FloatType", 2)))
            .column("lvec", list(vector("Int32Type", 2)))
            .column("u", udt("ks", "u", "a", opt(0x03), "v", vector("Int32Type", 2)))
            .column("t", tuple(opt(0x03), vector("LongType", 1)))
            .row(
                "00000001",
                "6869",
                "cafe",
                "",
                null,
                "3f800000 40200000",
                "3ff8000000000000",
                "00000001 ffffffff",
                "0000000000000007",
                "00000002 00000001 01 00000002 0203",
                "00000001 00000001 ff",
                "00000001 00000001 ca 00000008 3f800000 40000000",
                "00000001 00000008 00000001 00000002",
                "00000001 ff 00000008 00000001 00000002",
                "00000001 00 00000008 0000000000000007")
            .build();
    assertEquals(
        "Row[id=1, s=hi, b=0xcafe, e=0x, n=null, fv=[1.0, 2.5], dv=[1.5], iv=[1, -1], lv=[7],"
            + " lb=[0x01, 0x0203], sb=[0xff], m={0xca=[1.0, 2.0]}, lvec=[[1, 2]],"
            + " u={a: 0xff, v: [1, 2]}, t=(0x00, [7])]",
        Decoding.row(body).toString());
  }

  @Test
  void toStringShowsCellsWithoutAValueAsNullAndNestedNotSetAsSuch() {
    ByteBuf body =
        RowsBodies.rows()
            .column("a", opt(0x09))
            .column("b", opt(0x09))
            .column("c", opt(0x09))
            .column("l", list(opt(0x03)))
            .row((String) null)
            .raw("fffffffe") // not set
            .cell("")
            .cell("00000002 ffffffff fffffffe") // a NULL and a not-set element
            .build();
    assertEquals("Row[a=null, b=null, c=null, l=[null, <not set>]]", Decoding.row(body).toString());
  }
}
