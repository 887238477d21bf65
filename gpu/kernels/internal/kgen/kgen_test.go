package kgen

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	src := []byte(`
// a comment
extern "C" __global__ void k1(float *__restrict__ y, const double* x, long long n, Bcast b) {}
__device__ void helper(int a) {}
extern "C" __global__ void k2(
	const int *ptr,
	unsigned u) {}
extern "C" __global__ void k3() {}
`)
	ks, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []Kernel{
		{"k1", []Param{{"float *", "y"}, {"const double*", "x"}, {"long long", "n"}, {"Bcast", "b"}}},
		{"k2", []Param{{"const int *", "ptr"}, {"unsigned", "u"}}},
		{"k3", nil},
	}
	if !reflect.DeepEqual(ks, want) {
		t.Fatalf("Parse = %+v\nwant %+v", ks, want)
	}
	if _, err := Parse([]byte(`extern "C" __global__ void bad(int) {}`)); err == nil {
		t.Error("a parameter without a name parsed")
	}
	if _, err := Parse([]byte(`extern "C" __global__ void bad(int &x) {}`)); err == nil {
		t.Error("a reference parameter parsed")
	}
}
