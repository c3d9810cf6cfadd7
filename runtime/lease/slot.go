package lease

// slot is the Redis Cluster hash slot of every key of resource: CRC16
// (XMODEM) of the hash tag, the resource name, modulo 16384 (Redis Cluster
// specification, "Keys distribution model").
func slot(resource string) uint16 {
	// The keys are "<prefix>:{<resource>}:...", and resource has no
	// braces, so the tag is resource itself; an empty tag does not occur
	// (empty names are refused).
	var crc uint16
	for i := 0; i < len(resource); i++ {
		crc ^= uint16(resource[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc % 16384
}
