package io.switchboard.proto;

import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServiceDescriptor;
import io.grpc.protobuf.ProtoFileDescriptorSupplier;
import io.grpc.protobuf.ProtoUtils;
import io.switchboard.proto.v1.EventsRequest;
import io.switchboard.proto.v1.RoutingEvent;
import io.switchboard.proto.v1.RoutingProto;

/**
 * The method descriptor of the service {@code switchboard.v1.Routing} ({@code
 * switchboard/v1/routing.proto}), written by hand as {@link QueuesService}'s are and checked
 * against the .proto by QueuesServiceTest.
 */
public final class RoutingService {

  /** The service's full name, {@code switchboard.v1.Routing}. */
  public static final String NAME = "switchboard.v1.Routing";

  public static final MethodDescriptor<EventsRequest, RoutingEvent> EVENTS =
      MethodDescriptor.<EventsRequest, RoutingEvent>newBuilder()
          .setType(MethodType.SERVER_STREAMING)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(NAME, "Events"))
          .setRequestMarshaller(ProtoUtils.marshaller(EventsRequest.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(RoutingEvent.getDefaultInstance()))
          .build();

  /** The service with its method and its .proto file (for server reflection). */
  public static final ServiceDescriptor SERVICE =
      ServiceDescriptor.newBuilder(NAME)
          .setSchemaDescriptor(new Schema())
          .addMethod(EVENTS)
          .build();

  private RoutingService() {}

  private static final class Schema implements ProtoFileDescriptorSupplier {
    @Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return RoutingProto.getDescriptor();
    }
  }
}
