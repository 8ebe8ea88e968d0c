package io.switchboard.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.switchboard.proto.v1.QueuesProto;
import io.switchboard.proto.v1.RoutingProto;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The hand-written descriptors of {@link QueuesService} are the service the .proto declares: a
 * method added, renamed or turned into a stream there fails here until it is here too.
 */
class QueuesServiceTest {

  @Test
  void everyMethodOfTheProtoIsDescribedAlike() {
    describedAlike(
        QueuesProto.getDescriptor().findServiceByName("Queues"),
        QueuesService.NAME,
        QueuesService.SERVICE);
  }

  @Test
  void theRoutingServiceIsDescribedAlike() {
    describedAlike(
        RoutingProto.getDescriptor().findServiceByName("Routing"),
        RoutingService.NAME,
        RoutingService.SERVICE);
  }

  private static void describedAlike(
      ServiceDescriptor proto, String name, io.grpc.ServiceDescriptor service) {
    assertEquals(name, proto.getFullName());
    Map<String, String> declared =
        proto.getMethods().stream()
            .collect(
                Collectors.toMap(
                    MethodDescriptor::getName,
                    m ->
                        m.getInputType().getFullName()
                            + " -> "
                            + m.getOutputType().getFullName()
                            + " "
                            + type(m),
                    (a, b) -> a,
                    TreeMap::new));
    Map<String, String> described =
        service.getMethods().stream()
            .collect(
                Collectors.toMap(
                    io.grpc.MethodDescriptor::getBareMethodName,
                    m ->
                        typeName(m.getRequestMarshaller())
                            + " -> "
                            + typeName(m.getResponseMarshaller())
                            + " "
                            + m.getType(),
                    (a, b) -> a,
                    TreeMap::new));
    assertEquals(declared, described);
  }

  private static MethodType type(MethodDescriptor m) {
    if (m.isClientStreaming()) {
      return m.isServerStreaming() ? MethodType.BIDI_STREAMING : MethodType.CLIENT_STREAMING;
    }
    return m.isServerStreaming() ? MethodType.SERVER_STREAMING : MethodType.UNARY;
  }

  private static String typeName(io.grpc.MethodDescriptor.Marshaller<?> marshaller) {
    Function<Object, String> name =
        o -> ((com.google.protobuf.Message) o).getDescriptorForType().getFullName();
    return name.apply(
        ((io.grpc.MethodDescriptor.PrototypeMarshaller<?>) marshaller).getMessagePrototype());
  }
}
