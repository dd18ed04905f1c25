package io.cqlrows.capture.gen;

/**
 * What a synthetic capture holds for one TCP connection (client {@code clientAddress:clientPort} to
 * server 127.0.0.2:9042), in the order the connections were opened. Byte counts are of the TCP
 * payload (the CQL stream), each byte once however often it was retransmitted. Immutable.
 *
 * @param index the connection's number, from 0, in the order of their SYNs in the file
 * @param clientAddress the client's IPv4 address, dotted
 * @param clientPort the client's port
 * @param packets the packets of the connection in the file, handshake and FIN included
 * @param requests the requests the client sent, OPTIONS and STARTUP included
 * @param responses the responses complete in the file, SUPPORTED and READY included
 * @param unanswered the requests with no response in the file
 * @param lostResponses the responses with bytes missing from the file
 * @param clientBytes the length of the client-to-server stream
 * @param serverBytes the length of the server-to-client stream
 * @param lostClientBytes client-to-server bytes never in the file (always 0: only responses lose
 *     segments)
 * @param lostServerBytes server-to-client bytes never in the file, the sum of the gaps
 * @param lostSegments the segments never written (the gaps), server to client
 */
public record ConnectionStats(
    int index,
    String clientAddress,
    int clientPort,
    long packets,
    long requests,
    long responses,
    long unanswered,
    long lostResponses,
    long clientBytes,
    long serverBytes,
    long lostClientBytes,
    long lostServerBytes,
    long lostSegments) {}
