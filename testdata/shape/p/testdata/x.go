package x

type Outer struct{}

func (Outer) X() {}
