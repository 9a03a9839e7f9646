package p

func (Outer) Test1() {}
